import type { CodeGraderInput } from './types.js';
/**
 * snake_case → camelCase as AgentV 4.x renames payload keys: every `_x` (x a lowercase letter or
 * digit) becomes `X`; a key that starts with an uppercase letter is a proper name and stays.
 */
export declare function camel4(key: string): string;
/**
 * Renames every key below v with camel4, as 4.42.4's toCamelCaseDeep (packages/sdk/src/
 * case-conversion.ts) does: the user's config, metadata, message contents and tool inputs, and
 * the tool names of the trace's counts too (`read_file` becomes `readFile`, `Read` stays).
 */
export declare function camelDeep(v: unknown): unknown;
/**
 * Turns a parsed payload into the handler context, checked as AgentV 4.42.4's `@agentv/sdk`
 * checks it (see schema.ts): the 4.x names are required where 4.42.4 requires them, and a payload
 * that carries the 2.5 names (`candidate_answer`, `reference_answer`, ...) is refused, as 4.42.4's
 * Python helper refuses it. Optional fields a payload lacks are null.
 */
export declare function toGraderInput(raw: unknown): CodeGraderInput;
/** Parses stdin text (JSON) into the handler context. */
export declare function parseGraderInput(textIn: string): CodeGraderInput;
