// @agentv/sdk: the AgentV 4.x grader helpers, kept in @agentv/eval so both packages share one
// payload reader.
export * from '@agentv/eval/sdk';
