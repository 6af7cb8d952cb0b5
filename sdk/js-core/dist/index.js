// @agentv/core: the code judge payload reader AgentV's docs name, kept in @agentv/eval so both
// packages return the same object.
export { readCodeJudgePayload, parseCodeJudgePayload, PayloadError } from '@agentv/eval';
