import { defineAssertion, type AssertionContext } from '@agentv/sdk';

// AgentV 4.x field names, filled from the older payload names of testdata/payload.json.
export default defineAssertion(({ output, criteria, messages, traceSummary, tokenUsage, config }: AssertionContext) => ({
  pass: (output ?? '').includes('High'),
  reasoning: `criteria: ${criteria}`,
  assertions: [{ text: 'mentions High', passed: true, evidence: output ?? '' }],
  details: {
    roles: messages.map((m) => m.role),
    toolCalls: traceSummary?.toolCalls,
    tokens: tokenUsage?.input,
    config,
  },
}));
