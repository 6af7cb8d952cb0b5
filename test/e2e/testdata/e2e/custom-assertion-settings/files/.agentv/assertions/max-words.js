import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output, config }) => {
  const words = (output ?? '').split(/\s+/).filter(Boolean).length;
  return { pass: words <= config.maxWords, reasoning: `${words} of ${config.maxWords} (${config.label})` };
});
