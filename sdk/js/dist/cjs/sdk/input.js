"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.camel4 = camel4;
exports.camelDeep = camelDeep;
exports.toGraderInput = toGraderInput;
exports.parseGraderInput = parseGraderInput;
const node_fs_1 = require("node:fs");
const payload_js_1 = require("../payload.js");
const schema_js_1 = require("./schema.js");
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
/**
 * Renames every key below v with camel4, as 4.42.4's toCamelCaseDeep (packages/sdk/src/
 * case-conversion.ts) does: the user's config, metadata, message contents and tool inputs, and
 * the tool names of the trace's counts too (`read_file` becomes `readFile`, `Read` stays).
 */
function camelDeep(v) {
    if (Array.isArray(v))
        return v.map((x) => camelDeep(x));
    if (!isObject(v))
        return v;
    const out = {};
    for (const [k, val] of Object.entries(v))
        out[camel4(k)] = camelDeep(val);
    return out;
}
const orNull = (v) => (v === undefined ? null : v);
/**
 * Turns a parsed payload into the handler context, checked as AgentV 4.42.4's `@agentv/sdk`
 * checks it (see schema.ts): the 4.x names are required where 4.42.4 requires them, and a payload
 * that carries the 2.5 names (`candidate_answer`, `reference_answer`, ...) is refused, as 4.42.4's
 * Python helper refuses it. Optional fields a payload lacks are null.
 */
function toGraderInput(raw) {
    if (!isObject(raw))
        throw new payload_js_1.PayloadError(`invalid payload: expected a JSON object, got ${(0, payload_js_1.kindOf)(raw)}`);
    const o = camelDeep(raw);
    (0, schema_js_1.checkPayload)(raw, o);
    const ctx = {
        ...o,
        criteria: o.criteria,
        expectedOutput: o.expectedOutput,
        output: orNull(o.output),
        messages: o.messages ?? [],
        inputFiles: o.inputFiles,
        input: o.input,
        metadata: orNull(o.metadata),
        trace: orNull(o.trace),
        traceSummary: orNull(o.traceSummary),
        tokenUsage: orNull(o.tokenUsage),
        costUsd: orNull(o.costUsd),
        durationMs: orNull(o.durationMs),
        startTime: orNull(o.startTime),
        endTime: orNull(o.endTime),
        fileChanges: orNull(o.fileChanges),
        workspacePath: orNull(o.workspacePath),
        config: orNull(o.config),
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
