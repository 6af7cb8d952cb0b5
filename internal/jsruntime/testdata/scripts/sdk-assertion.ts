import { defineAssertion, type AssertionContext } from '@agentv/sdk';

// AgentV 4.x field names, from the 4.x payload of testdata/payload-v4.json.
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
