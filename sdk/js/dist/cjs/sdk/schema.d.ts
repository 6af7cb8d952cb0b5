type Obj = Record<string, unknown>;
/**
 * Names of AgentV 2.5 payloads and older helpers. AgentV 4.42.4's Python helper refuses a payload
 * holding any ("Deprecated wire fields are not accepted"); so does this SDK, so that a payload
 * mixing the two shows up in agentv's own tests.
 */
export declare const DEPRECATED_WIRE_FIELDS: readonly ['question', 'expected_outcome', 'reference_answer', 'candidate_answer', 'actual_output', 'output_messages', 'input_messages', 'expected_messages', 'guideline_files', 'output_text', 'input_text', 'expected_output_text'];
/** Checks a raw payload (snake_case, as read from stdin) and its camelCased form. */
export declare function checkPayload(raw: Obj, camel: Obj): void;
export {};
