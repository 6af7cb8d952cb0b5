"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PayloadError = void 0;
exports.kindOf = kindOf;
exports.camelKey = camelKey;
exports.convertMessages = convertMessages;
exports.toCodeJudgeInput = toCodeJudgeInput;
exports.parseCodeJudgePayload = parseCodeJudgePayload;
/** Thrown when stdin does not hold a payload the SDK can use. */
class PayloadError extends Error {
    constructor(message) {
        super(message);
        this.name = 'PayloadError';
    }
}
exports.PayloadError = PayloadError;
function isObject(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/** Names a JSON value's kind for error messages. */
function kindOf(v) {
    if (v === null)
        return 'null';
    if (Array.isArray(v))
        return 'an array';
    if (typeof v === 'object')
        return 'an object';
    if (typeof v === 'string')
        return 'a string';
    if (typeof v === 'number')
        return 'a number';
    if (typeof v === 'boolean')
        return 'a boolean';
    return typeof v;
}
/**
 * snake_case → camelCase for one key. Only an underscore that follows a letter or digit starts a new
 * word, so `_private` and already-camel keys are left alone.
 */
function camelKey(key) {
    return key.replace(/(?<=[A-Za-z0-9])_+([A-Za-z0-9])/g, (_m, c) => c.toUpperCase());
}
// Message lists among the payload's own keys (camelCase names).
const messageLists = new Set(['expectedOutput', 'expectedMessages', 'input', 'inputMessages', 'outputMessages']);
/** Renames the keys of one object; values are kept as they are unless convert says otherwise. */
function renameKeys(o, convert, where = '') {
    const out = {};
    for (const [k, v] of Object.entries(o)) {
        const ck = camelKey(k);
        out[ck] = convert ? convert(ck, v, where ? `${where}.${k}` : k) : v;
    }
    return out;
}
function convertToolCalls(v, where) {
    if (!Array.isArray(v))
        throw new PayloadError(`invalid payload: ${where} must be an array of tool calls, got ${kindOf(v)}`);
    return v.map((tc, i) => {
        if (!isObject(tc))
            throw new PayloadError(`invalid payload: ${where}[${i}] must be an object, got ${kindOf(tc)}`);
        return renameKeys(tc); // input, output: user data, kept as is
    });
}
function convertMessages(v, where) {
    if (!Array.isArray(v))
        throw new PayloadError(`invalid payload: ${where} must be an array of messages, got ${kindOf(v)}`);
    return v.map((m, i) => {
        if (!isObject(m))
            throw new PayloadError(`invalid payload: ${where}[${i}] must be a message object, got ${kindOf(m)}`);
        // content and metadata are user data; tool_calls holds the payload's own tool call objects.
        return renameKeys(m, (k, val, w) => (k === 'toolCalls' && val != null ? convertToolCalls(val, w) : val), `${where}[${i}]`);
    });
}
function convertTrace(v) {
    if (v == null)
        return null;
    if (!isObject(v))
        throw new PayloadError(`invalid payload: trace_summary must be an object or null, got ${kindOf(v)}`);
    // toolCallsByName maps tool names (data) to counts: only the summary's own keys and the
    // token usage keys are renamed.
    return renameKeys(v, (k, val) => (k === 'tokenUsage' && isObject(val) ? renameKeys(val) : val));
}
/**
 * Converts a parsed payload (snake_case, as agentv writes it; camelCase is accepted too) into the
 * handler input: the payload's own keys and message keys renamed, user data untouched, old and new
 * field names both filled, absent fields given their empty value.
 */
function toCodeJudgeInput(raw) {
    if (!isObject(raw))
        throw new PayloadError(`invalid payload: expected a JSON object, got ${kindOf(raw)}`);
    const o = renameKeys(raw, (k, v, where) => {
        if (messageLists.has(k))
            return k === 'outputMessages' && v == null ? null : v == null ? undefined : convertMessages(v, where);
        if (k === 'traceSummary')
            return convertTrace(v);
        return v;
    });
    const str = (key, wire, fallback) => {
        const v = o[key];
        if (v == null)
            return fallback;
        if (typeof v !== 'string')
            throw new PayloadError(`invalid payload: ${wire} must be a string, got ${kindOf(v)}`);
        return v;
    };
    const strings = (key, wire) => {
        const v = o[key];
        if (v == null)
            return [];
        if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
            throw new PayloadError(`invalid payload: ${wire} must be an array of strings, got ${kindOf(v)}`);
        }
        return v;
    };
    const either = (a, b, fallback) => (o[a] ?? o[b] ?? fallback);
    const actualOutput = o.actualOutput != null ? str('actualOutput', 'actual_output', '') : str('candidateAnswer', 'candidate_answer', '');
    const expectedOutput = either('expectedOutput', 'expectedMessages', []);
    const input = either('input', 'inputMessages', []);
    const config = o.config;
    if (config != null && !isObject(config))
        throw new PayloadError(`invalid payload: config must be an object or null, got ${kindOf(config)}`);
    const reference = o.referenceAnswer;
    if (reference != null && typeof reference !== 'string') {
        throw new PayloadError(`invalid payload: reference_answer must be a string or null, got ${kindOf(reference)}`);
    }
    return {
        ...o, // keys this SDK version does not know yet stay available (camelCased)
        question: str('question', 'question', ''),
        expectedOutcome: str('expectedOutcome', 'expected_outcome', ''),
        expectedOutput,
        expectedMessages: expectedOutput,
        input,
        inputMessages: input,
        actualOutput,
        candidateAnswer: actualOutput,
        outputMessages: o.outputMessages ?? null,
        referenceAnswer: reference ?? null,
        guidelineFiles: strings('guidelineFiles', 'guideline_files'),
        inputFiles: strings('inputFiles', 'input_files'),
        traceSummary: o.traceSummary ?? null,
        config: config ?? null,
    };
}
/** Parses the payload text from stdin (JSON) into the handler input. */
function parseCodeJudgePayload(text) {
    if (text.trim() === '') {
        throw new PayloadError('no payload on stdin: expected the JSON object that agentv sends to prompt templates and code judges');
    }
    let raw;
    try {
        raw = JSON.parse(text);
    }
    catch (err) {
        throw new PayloadError(`invalid payload on stdin: not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    return toCodeJudgeInput(raw);
}
