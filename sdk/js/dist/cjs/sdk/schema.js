"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEPRECATED_WIRE_FIELDS = void 0;
exports.checkPayload = checkPayload;
/**
 * The payload checks of AgentV 4.42.4's `@agentv/sdk` (packages/sdk/src/schemas.ts,
 * CodeGraderInputSchema), applied to the camelCased payload with the same strictness: required
 * fields, types, the canonical trace (`messages` and `events`), message roles. Paths in errors
 * use the wire (snake_case) names, since that is what a grader's stdin shows.
 */
const payload_js_1 = require("../payload.js");
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** camelCase path segments back to the wire's snake_case. */
const wire = (path) => path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
function bad(path, want, v) {
    throw new payload_js_1.PayloadError(`invalid payload: ${wire(path)} must be ${want}, got ${v === undefined ? 'nothing' : (0, payload_js_1.kindOf)(v)}`);
}
const str = (v, p) => {
    if (typeof v !== 'string')
        bad(p, 'a string', v);
};
const num = (v, p) => {
    if (typeof v !== 'number' || Number.isNaN(v))
        bad(p, 'a number', v);
};
const nonNegInt = (v, p) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
        bad(p, 'a whole number of at least 0', v);
};
const nonNeg = (v, p) => {
    if (typeof v !== 'number' || Number.isNaN(v) || v < 0)
        bad(p, 'a number of at least 0', v);
};
const bool = (v, p) => {
    if (typeof v !== 'boolean')
        bad(p, 'true or false', v);
};
const any = () => { };
const record = (v, p) => {
    if (!isObject(v))
        bad(p, 'an object', v);
};
const oneOf = (values) => (v, p) => {
    if (typeof v !== 'string' || !values.includes(v))
        bad(p, `one of ${values.join(', ')}`, v);
};
const arrayOf = (item, what) => (v, p) => {
    if (!Array.isArray(v))
        bad(p, `an array of ${what}`, v);
    v.forEach((x, i) => item(x, `${p}[${i}]`));
};
const recordOf = (item) => (v, p) => {
    record(v, p);
    for (const [k, x] of Object.entries(v))
        item(x, `${p}.${k}`);
};
/** An object with the given fields; `?` after a name: may be absent (not null), `??`: also null. */
function object(fields) {
    return (v, p) => {
        record(v, p);
        const o = v;
        for (const [spec, check] of Object.entries(fields)) {
            const nullable = spec.endsWith('??');
            const optional = nullable || spec.endsWith('?');
            const name = spec.replace(/\?+$/, '');
            const x = o[name];
            const at = p === '' ? name : `${p}.${name}`;
            if (x === undefined && optional)
                continue;
            if (x === null && nullable)
                continue;
            check(x, at);
        }
    };
}
const tokenUsage = object({ input: num, output: num, 'cached?': num, 'reasoning?': num });
const summaryFields = {
    eventCount: num,
    toolCalls: recordOf(num),
    errorCount: num,
    'toolDurations?': recordOf(arrayOf(num, 'numbers')),
    'llmCallCount?': num,
};
const toolCall = object({
    tool: str, 'input?': any, 'output?': any, 'id?': str, 'startTime?': str, 'endTime?': str, 'durationMs?': num,
});
// 4.42.4 accepts any object as a content block (its typed blocks, or a record).
const contentBlock = record;
const content = (v, p) => {
    if (typeof v === 'string' || isObject(v))
        return;
    if (Array.isArray(v)) {
        v.forEach((b, i) => contentBlock(b, `${p}[${i}]`));
        return;
    }
    bad(p, 'a string, an array of content blocks or an object', v);
};
const message = object({
    role: oneOf(['assistant', 'user', 'system', 'tool']),
    'content?': content,
    'toolCalls?': arrayOf(toolCall, 'tool calls'),
    'name?': str,
    'startTime?': str,
    'endTime?': str,
    'durationMs?': num,
    'metadata?': record,
});
const messages = arrayOf(message, 'messages');
const redaction = object({ level: oneOf(['none', 'partial', 'full']), 'fields?': arrayOf(str, 'strings'), 'reason?': str });
const traceError = object({ message: str, 'name?': str, 'code?': str, 'stack?': str, 'metadata?': record });
const traceEvent = object({
    eventId: str,
    'parentEventId?': str,
    ordinal: nonNegInt,
    type: oneOf(['message', 'model_turn', 'tool_call', 'tool_result', 'final_response', 'error']),
    'timestamp?': str,
    'durationMs?': nonNeg,
    'durationInferred?': bool,
    'turnIndex?': nonNegInt,
    'message?': object({ role: str, 'name?': str, 'content?': any, 'redaction?': redaction, 'tokenUsage?': tokenUsage, 'metadata?': record }),
    'model?': object({ 'provider?': str, 'name?': str, 'invocationId?': str, 'tokenUsage?': tokenUsage, 'metadata?': record }),
    'tool?': object({
        name: str, 'callId?': str, 'input?': any, 'output?': any,
        'status?': oneOf(['ok', 'error', 'timeout', 'cancelled', 'unknown']),
        'error?': traceError, 'redaction?': redaction, 'metadata?': record,
    }),
    'error?': traceError,
    'sourceRef?': record,
    'rawEvidence?': arrayOf(object({ kind: str }), 'evidence objects'),
    'redaction?': redaction,
    'metadata?': record,
});
const trace = object({
    ...summaryFields,
    messages,
    events: arrayOf(traceEvent, 'trace events'),
    'tokenUsage?': tokenUsage,
    'costUsd?': num,
    'durationMs?': num,
    'startTime?': str,
    'endTime?': str,
    'metadata?': record,
});
const payload = object({
    criteria: str,
    expectedOutput: messages,
    'output??': str,
    'messages?': messages,
    'outputPath?': str,
    inputFiles: arrayOf(str, 'paths'),
    input: messages,
    'metadata??': record,
    'trace??': trace,
    'traceSummary??': object(summaryFields),
    'tokenUsage??': tokenUsage,
    'costUsd??': num,
    'durationMs??': num,
    'startTime??': str,
    'endTime??': str,
    'fileChanges??': str,
    'workspacePath??': str,
    'config??': record,
});
/**
 * Names of AgentV 2.5 payloads and older helpers. AgentV 4.42.4's Python helper refuses a payload
 * holding any ("Deprecated wire fields are not accepted"); so does this SDK, so that a payload
 * mixing the two shows up in agentv's own tests.
 */
exports.DEPRECATED_WIRE_FIELDS = [
    'question', 'expected_outcome', 'reference_answer', 'candidate_answer', 'actual_output', 'output_messages',
    'input_messages', 'expected_messages', 'guideline_files', 'output_text', 'input_text', 'expected_output_text',
];
/** Checks a raw payload (snake_case, as read from stdin) and its camelCased form. */
function checkPayload(raw, camel) {
    const old = exports.DEPRECATED_WIRE_FIELDS.filter((k) => k in raw);
    if (old.length > 0) {
        throw new payload_js_1.PayloadError(`invalid payload: deprecated wire fields are not accepted: ${old.join(', ')} (AgentV 4.x graders read criteria, input, output, expected_output and messages)`);
    }
    payload(camel, '');
}
