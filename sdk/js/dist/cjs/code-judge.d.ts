import { type ProcessIO } from './process-io.js';
import type { CodeJudgeHandler, CodeJudgeResult } from './types.js';
/**
 * Runs a code judge: reads the payload from stdin, calls handler (awaiting it when it is async),
 * checks its result and prints it as one JSON object with the score clamped to [0, 1]. On error the
 * message goes to stderr and the process exits with code 1.
 *
 * ```ts
 * import { defineCodeJudge } from '@agentv/eval';
 * export default defineCodeJudge(({ actualOutput }) => ({ score: actualOutput.includes('Paris') ? 1 : 0 }));
 * ```
 */
export declare function defineCodeJudge(handler: CodeJudgeHandler): Promise<void>;
export declare function runCodeJudge(handler: CodeJudgeHandler, io: ProcessIO): Promise<void>;
/**
 * Checks a handler's result and puts it in the shape agentv reads: score clamped to [0, 1], hits and
 * misses as arrays without blank entries, reasoning and details only when given.
 */
export declare function normalizeResult(r: unknown): CodeJudgeResult;
