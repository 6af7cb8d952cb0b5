// @agentv/core: the code judge payload reader of seed 002, kept in @agentv/eval so both
// packages return the same object.
export { readCodeJudgePayload, parseCodeJudgePayload, PayloadError } from '@agentv/eval';
