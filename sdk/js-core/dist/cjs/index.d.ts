export { readCodeJudgePayload, parseCodeJudgePayload, PayloadError } from '@agentv/eval';
export type { CodeJudgeInput, CodeJudgePayload, CodeJudgeResult, Message, TokenUsage, ToolCall, TraceSummary } from '@agentv/eval';
