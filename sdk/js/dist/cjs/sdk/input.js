"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.camel4 = camel4;
exports.camelDeep = camelDeep;
exports.toGraderInput = toGraderInput;
exports.parseGraderInput = parseGraderInput;
const node_fs_1 = require("node:fs");
const payload_js_1 = require("../payload.js");
function isObject(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/**
 * snake_case → camelCase as AgentV 4.x renames payload keys: every `_x` (x a lowercase letter or
 * digit) becomes `X`; a key that starts with an uppercase letter is a proper name and stays.
 */
function camel4(key) {
    if (/^[A-Z]/.test(key))
        return key;
    return key.replace(/_([a-z0-9])/g, (_m, c) => c.toUpperCase());
}
// Objects whose keys are tool names (data, not field names): their keys keep their spelling.
const toolNameMaps = new Set(['toolCalls', 'toolCallsByName', 'toolDurations']);
/** Renames every key below v with camel4, except the tool names of the trace summary maps. */
function camelDeep(v, keepKeys = false) {
    if (Array.isArray(v))
        return v.map((x) => camelDeep(x));
    if (!isObject(v))
        return v;
    const out = {};
    for (const [k, val] of Object.entries(v)) {
        const key = keepKeys ? k : camel4(k);
        out[key] = camelDeep(val, !keepKeys && toolNameMaps.has(key) && isObject(val));
    }
    return out;
}
const orNull = (v) => (v === undefined ? null : v);
function messages(v, field) {
    if (v == null)
        return undefined;
    if (!Array.isArray(v))
        throw new payload_js_1.PayloadError(`invalid payload: ${field} must be an array of messages, got ${(0, payload_js_1.kindOf)(v)}`);
    v.forEach((m, i) => {
        if (!isObject(m))
            throw new payload_js_1.PayloadError(`invalid payload: ${field}[${i}] must be a message object, got ${(0, payload_js_1.kindOf)(m)}`);
    });
    return v;
}
function text(v, field) {
    if (v == null)
        return undefined;
    if (typeof v !== 'string')
        throw new payload_js_1.PayloadError(`invalid payload: ${field} must be a string, got ${(0, payload_js_1.kindOf)(v)}`);
    return v;
}
/**
 * Turns a parsed payload into the handler context. agentv's payload carries the AgentV 4.x names
 * (`output`, `criteria`, `messages`, `token_usage`, ...) and the older ones (`candidate_answer`,
 * `expected_outcome`, `output_messages`, `trace_summary.token_usage`, ...); a 4.x name that is
 * missing is filled from its older counterpart, so handlers see the 4.x shape either way.
 */
function toGraderInput(raw) {
    if (!isObject(raw))
        throw new payload_js_1.PayloadError(`invalid payload: expected a JSON object, got ${(0, payload_js_1.kindOf)(raw)}`);
    const o = camelDeep(raw);
    const input = messages(o.input, 'input') ?? messages(o.inputMessages, 'input_messages') ?? [];
    const expectedOutput = messages(o.expectedOutput, 'expected_output') ?? messages(o.expectedMessages, 'expected_messages') ?? [];
    // `output` is the final answer; a list there is the transcript of an older agentv.
    let outputList;
    let output = null;
    if (Array.isArray(o.output))
        outputList = messages(o.output, 'output');
    else
        output = text(o.output, 'output') ?? null;
    output ??= text(o.actualOutput, 'actual_output') ?? text(o.candidateAnswer, 'candidate_answer') ?? null;
    const produced = outputList ?? messages(o.outputMessages, 'output_messages');
    let transcript = messages(o.messages, 'messages');
    if (transcript === undefined) {
        const answer = produced ?? (output != null && output !== '' ? [{ role: 'assistant', content: output }] : []);
        transcript = [...input, ...answer];
    }
    let traceSummary = (o.traceSummary ?? null);
    if (traceSummary != null) {
        if (!isObject(traceSummary))
            throw new payload_js_1.PayloadError(`invalid payload: trace_summary must be an object or null, got ${(0, payload_js_1.kindOf)(traceSummary)}`);
        if (!isObject(traceSummary.toolCalls)) {
            const byName = traceSummary.toolCallsByName;
            traceSummary = { ...traceSummary, toolCalls: isObject(byName) ? byName : {} };
        }
    }
    const fromSummary = (key) => traceSummary?.[key];
    const config = o.config;
    if (config != null && !isObject(config))
        throw new payload_js_1.PayloadError(`invalid payload: config must be an object or null, got ${(0, payload_js_1.kindOf)(config)}`);
    const ctx = {
        ...o,
        criteria: text(o.criteria, 'criteria') ?? text(o.expectedOutcome, 'expected_outcome') ?? '',
        expectedOutput,
        output,
        messages: transcript,
        inputFiles: Array.isArray(o.inputFiles) ? o.inputFiles : [],
        input,
        metadata: orNull(o.metadata),
        trace: orNull(o.trace),
        traceSummary,
        tokenUsage: orNull(o.tokenUsage ?? fromSummary('tokenUsage')),
        costUsd: orNull(o.costUsd ?? fromSummary('costUsd')),
        durationMs: orNull(o.durationMs ?? fromSummary('durationMs')),
        startTime: orNull(o.startTime),
        endTime: orNull(o.endTime),
        fileChanges: orNull(o.fileChanges),
        workspacePath: orNull(o.workspacePath),
        config: config ?? null,
    };
    if (typeof o.outputPath === 'string' && ctx.output == null) {
        // A large answer is written to a file: read it the first time a handler looks.
        const path = o.outputPath;
        let cached;
        Object.defineProperty(ctx, 'output', {
            get() {
                cached ??= JSON.parse((0, node_fs_1.readFileSync)(path, 'utf8'));
                return cached;
            },
            enumerable: true,
            configurable: true,
        });
    }
    return ctx;
}
/** Parses stdin text (JSON) into the handler context. */
function parseGraderInput(textIn) {
    if (textIn.trim() === '') {
        throw new payload_js_1.PayloadError('no payload on stdin: expected the JSON object that agentv sends to graders and prompt templates');
    }
    let raw;
    try {
        raw = JSON.parse(textIn);
    }
    catch (err) {
        throw new payload_js_1.PayloadError(`invalid payload on stdin: not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    return toGraderInput(raw);
}
