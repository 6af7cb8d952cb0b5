import type { Message } from './types.js';
/** Environment variables agentv sets for a code judge whose evaluator has `target:`. */
export declare const TARGET_PROXY_URL_ENV = "AGENTV_TARGET_PROXY_URL";
export declare const TARGET_PROXY_TOKEN_ENV = "AGENTV_TARGET_PROXY_TOKEN";
/** One call through the target proxy. */
export interface TargetInvokeRequest {
    question: string;
    systemPrompt?: string;
    /** A target name from `info().availableTargets`; default: the case's judge. */
    target?: string;
    evalCaseId?: string;
    attempt?: number;
}
/** What the target answered. */
export interface TargetInvokeResponse {
    /** The answer as messages (keys camelCase, content as the target returned it). */
    outputMessages: Message[];
    /** The final answer text. */
    rawText: string;
}
/** The proxy's state. */
export interface TargetInfo {
    /** The default target: the case's judge. */
    targetName: string;
    maxCalls: number;
    callCount: number;
    availableTargets: string[];
}
/** A call the proxy refused or could not make; status is the HTTP status (429: max_calls reached). */
export declare class TargetProxyError extends Error {
    readonly status: number;
    constructor(message: string, status: number);
}
export interface TargetClient {
    info(): Promise<TargetInfo>;
    invoke(request: TargetInvokeRequest): Promise<TargetInvokeResponse>;
    /** Several calls in one request; each counts against max_calls. */
    invokeBatch(requests: TargetInvokeRequest[]): Promise<TargetInvokeResponse[]>;
}
type Env = Record<string, string | undefined>;
/**
 * Returns a client for the target proxy agentv runs while a code judge with `target: true` or
 * `target: {max_calls: n}` is running, or undefined when the judge was started without one.
 *
 * ```ts
 * const target = createTargetClient();
 * const { rawText } = await target!.invoke({ question: `Is this polite? ${actualOutput}` });
 * ```
 */
export declare function createTargetClient(env?: Env): TargetClient | undefined;
export {};
