import { type ProcessIO } from '../process-io.js';
import type { AssertionEntry, AssertionHandler, CodeGraderHandler, CodeGraderResult, PromptTemplateHandler } from './types.js';
/** The JSON object agentv reads from a grader's stdout. */
interface WireResult {
    score: number;
    assertions: AssertionEntry[];
    reasoning?: string;
    details?: Record<string, unknown>;
}
/** Checks a code grader's result: a number score, clamped to [0, 1]. */
export declare function gradeResult(r: unknown): WireResult;
/** Checks an assertion's result: the score is `score` (clamped), else 1 or 0 from `pass`, else 0. */
export declare function assertionResult(r: unknown): WireResult;
export declare function runCodeGrader(handler: CodeGraderHandler, io: ProcessIO): Promise<void>;
export declare function runAssertion(handler: AssertionHandler, io: ProcessIO): Promise<void>;
export declare function runPromptTemplate(handler: PromptTemplateHandler, io: ProcessIO): Promise<void>;
/**
 * Runs a code grader: reads the context from stdin, calls handler (awaiting it when async) and
 * prints `{score, assertions, reasoning?, details?}` with the score clamped to [0, 1]. On error the
 * message goes to stderr and the process exits with code 1.
 *
 * ```ts
 * import { defineCodeGrader } from '@agentv/sdk';
 * export default defineCodeGrader(({ output }) => ({ score: output?.includes('Paris') ? 1 : 0 }));
 * ```
 */
export declare function defineCodeGrader(handler: CodeGraderHandler): Promise<void>;
/**
 * Runs a custom assertion (a file in `.agentv/assertions/`, used as `type: <file name>`): the
 * handler returns `{pass}` or `{score}`, with optional `assertions`, `reasoning` and `details`.
 *
 * ```ts
 * import { defineAssertion } from '@agentv/sdk';
 * export default defineAssertion(({ output }) => ({ pass: /hello/i.test(output ?? '') }));
 * ```
 */
export declare function defineAssertion(handler: AssertionHandler): Promise<void>;
/**
 * Runs a prompt template for an llm-grader: the handler returns the grader's prompt.
 *
 * ```ts
 * import { definePromptTemplate } from '@agentv/sdk';
 * export default definePromptTemplate((ctx) => `Criteria: ${ctx.criteria}\nAnswer: ${ctx.output ?? ''}`);
 * ```
 */
export declare function definePromptTemplate(handler: PromptTemplateHandler): Promise<void>;
export type { CodeGraderResult };
