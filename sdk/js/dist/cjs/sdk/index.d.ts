/**
 * `@agentv/sdk`: the AgentV 4.x helpers for code graders, custom assertions and prompt templates,
 * as agentv carries them. agentv runs the script with the evaluation context as JSON on stdin;
 * these helpers read it, camelCase its keys, call your handler and print what agentv expects.
 */
export { defineCodeGrader, defineAssertion, definePromptTemplate } from './run.js';
export { toGraderInput, parseGraderInput } from './input.js';
export { createTargetClient, TargetNotAvailableError, TargetInvocationError } from './target.js';
export type { TargetClient, TargetInfo, TargetInvokeRequest, TargetInvokeResponse } from './target.js';
export { z } from './zod.js';
export type { AssertionContext, AssertionEntry, AssertionHandler, AssertionScore, AssertionType, CodeGraderHandler, CodeGraderInput, CodeGraderResult, Message, PromptTemplateHandler, PromptTemplateInput, TokenUsage, ToolCall, Trace, TraceEvent, TraceSummary, } from './types.js';
