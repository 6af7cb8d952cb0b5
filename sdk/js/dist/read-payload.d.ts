import type { CodeJudgePayload } from './types.js';
/**
 * Reads the payload from stdin and returns it camelCased (the `@agentv/core` API of AgentV's code judge docs). Stdin can
 * be read only once, so later calls return the same object. Throws when stdin holds no valid payload.
 *
 * ```ts
 * import { readCodeJudgePayload } from '@agentv/core';
 * const { actualOutput, expectedOutput } = readCodeJudgePayload();
 * ```
 */
export declare function readCodeJudgePayload(): CodeJudgePayload;
