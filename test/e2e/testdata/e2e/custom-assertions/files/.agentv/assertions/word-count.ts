import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output }) => {
  const words = (output ?? '').split(/\s+/).filter(Boolean).length;
  return {
    pass: words <= 5,
    score: Math.min(1, 5 / words),
    reasoning: `${words} words`,
    assertions: [{ text: 'at most 5 words', passed: words <= 5, evidence: `${words} words` }],
  };
});
