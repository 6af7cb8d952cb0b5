import type { CodeGraderInput } from './types.js';
/**
 * snake_case → camelCase as AgentV 4.x renames payload keys: every `_x` (x a lowercase letter or
 * digit) becomes `X`; a key that starts with an uppercase letter is a proper name and stays.
 */
export declare function camel4(key: string): string;
/** Renames every key below v with camel4, except the tool names of the trace summary maps. */
export declare function camelDeep(v: unknown, keepKeys?: boolean): unknown;
/**
 * Turns a parsed payload into the handler context, checked as AgentV 4.42.4's `@agentv/sdk`
 * checks it (see schema.ts): the 4.x names are required where 4.42.4 requires them, and a payload
 * that carries the 2.5 names (`candidate_answer`, `reference_answer`, ...) is refused, as 4.42.4's
 * Python helper refuses it. Optional fields a payload lacks are null.
 */
export declare function toGraderInput(raw: unknown): CodeGraderInput;
/** Parses stdin text (JSON) into the handler context. */
export declare function parseGraderInput(textIn: string): CodeGraderInput;
