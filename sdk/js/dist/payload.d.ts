import type { CodeJudgeInput, Message } from './types.js';
/** Thrown when stdin does not hold a payload the SDK can use. */
export declare class PayloadError extends Error {
    constructor(message: string);
}
/** Names a JSON value's kind for error messages. */
export declare function kindOf(v: unknown): string;
/**
 * snake_case → camelCase for one key. Only an underscore that follows a letter or digit starts a new
 * word, so `_private` and already-camel keys are left alone.
 */
export declare function camelKey(key: string): string;
export declare function convertMessages(v: unknown, where: string): Message[];
/**
 * Converts a parsed payload (snake_case, as agentv writes it; camelCase is accepted too) into the
 * handler input: the payload's own keys and message keys renamed, user data untouched, old and new
 * field names both filled, absent fields given their empty value.
 */
export declare function toCodeJudgeInput(raw: unknown): CodeJudgeInput;
/** Parses the payload text from stdin (JSON) into the handler input. */
export declare function parseCodeJudgePayload(text: string): CodeJudgeInput;
