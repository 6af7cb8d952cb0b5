import type { Message, TokenUsage } from './types.js';
/** One call to a target through agentv's proxy. */
export interface TargetInvokeRequest {
    question: string;
    systemPrompt?: string;
    evalCaseId?: string;
    attempt?: number;
    /** A name from `getInfo().availableTargets`; default: the test's grader target. */
    target?: string;
}
/** What the target answered. */
export interface TargetInvokeResponse {
    /** The answer as messages. */
    output: Message[];
    /** The final answer text. */
    rawText?: string;
    tokenUsage?: TokenUsage;
}
export interface TargetInfo {
    targetName: string;
    maxCalls: number;
    callCount: number;
    availableTargets: string[];
}
export interface TargetClient {
    invoke(request: TargetInvokeRequest): Promise<TargetInvokeResponse>;
    invokeBatch(requests: readonly TargetInvokeRequest[]): Promise<TargetInvokeResponse[]>;
    getInfo(): Promise<TargetInfo>;
}
/** The proxy's URL is set without its token: the grader was not started by agentv as it should. */
export declare class TargetNotAvailableError extends Error {
    constructor(message: string);
}
/** A call the proxy refused or could not make; statusCode 429 means max_calls was reached. */
export declare class TargetInvocationError extends Error {
    readonly statusCode?: number;
    constructor(message: string, statusCode?: number);
}
/**
 * Returns a client for the target proxy agentv runs while a code grader with `target:` runs, or
 * undefined when the grader was started without one.
 */
export declare function createTargetClient(env?: Record<string, string | undefined>): TargetClient | undefined;
