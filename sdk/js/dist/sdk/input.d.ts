import type { CodeGraderInput } from './types.js';
/**
 * snake_case → camelCase as AgentV 4.x renames payload keys: every `_x` (x a lowercase letter or
 * digit) becomes `X`; a key that starts with an uppercase letter is a proper name and stays.
 */
export declare function camel4(key: string): string;
/** Renames every key below v with camel4, except the tool names of the trace summary maps. */
export declare function camelDeep(v: unknown, keepKeys?: boolean): unknown;
/**
 * Turns a parsed payload into the handler context. agentv's payload carries the AgentV 4.x names
 * (`output`, `criteria`, `messages`, `token_usage`, ...) and the older ones (`candidate_answer`,
 * `expected_outcome`, `output_messages`, `trace_summary.token_usage`, ...); a 4.x name that is
 * missing is filled from its older counterpart, so handlers see the 4.x shape either way.
 */
export declare function toGraderInput(raw: unknown): CodeGraderInput;
/** Parses stdin text (JSON) into the handler context. */
export declare function parseGraderInput(textIn: string): CodeGraderInput;
