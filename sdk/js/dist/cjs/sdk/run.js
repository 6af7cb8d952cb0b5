"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.gradeResult = gradeResult;
exports.assertionResult = assertionResult;
exports.runCodeGrader = runCodeGrader;
exports.runAssertion = runAssertion;
exports.runPromptTemplate = runPromptTemplate;
exports.defineCodeGrader = defineCodeGrader;
exports.defineAssertion = defineAssertion;
exports.definePromptTemplate = definePromptTemplate;
const payload_js_1 = require("../payload.js");
const process_io_js_1 = require("../process-io.js");
const worker_js_1 = require("../worker.js");
const input_js_1 = require("./input.js");
function clamp(score) {
    return Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
}
function assertionList(v, who) {
    if (v == null)
        return [];
    if (!Array.isArray(v))
        throw new TypeError(`${who} result: assertions must be an array of {text, passed}, got ${(0, payload_js_1.kindOf)(v)}`);
    return v.map((a, i) => {
        if (typeof a !== 'object' || a === null || typeof a.text !== 'string' || typeof a.passed !== 'boolean') {
            throw new TypeError(`${who} result: assertions[${i}] must be {text: string, passed: boolean, evidence?: string}, got ${(0, payload_js_1.kindOf)(a)}`);
        }
        const e = { text: a.text, passed: a.passed };
        if (a.evidence != null) {
            if (typeof a.evidence !== 'string')
                throw new TypeError(`${who} result: assertions[${i}].evidence must be a string, got ${(0, payload_js_1.kindOf)(a.evidence)}`);
            e.evidence = a.evidence;
        }
        return e;
    });
}
function resultObject(r, who, example) {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
        throw new TypeError(`${who} must return an object like ${example}, got ${r === undefined ? 'undefined' : (0, payload_js_1.kindOf)(r)}`);
    }
    return r;
}
/** The fields every verdict shares: assertions, reasoning and details, checked. */
function common(o, score, who) {
    const out = { score, assertions: assertionList(o.assertions, who) };
    if (o.reasoning != null) {
        if (typeof o.reasoning !== 'string')
            throw new TypeError(`${who} result: reasoning must be a string, got ${(0, payload_js_1.kindOf)(o.reasoning)}`);
        out.reasoning = o.reasoning;
    }
    if (o.details != null) {
        if (typeof o.details !== 'object' || Array.isArray(o.details)) {
            throw new TypeError(`${who} result: details must be an object, got ${(0, payload_js_1.kindOf)(o.details)}`);
        }
        out.details = o.details;
    }
    return out;
}
/** Checks a code grader's result: a number score, clamped to [0, 1]. */
function gradeResult(r) {
    const o = resultObject(r, 'code grader', '{ score: 1, assertions: [] }');
    if (typeof o.score !== 'number' || Number.isNaN(o.score)) {
        throw new TypeError(`code grader result: score must be a number from 0 to 1, got ${o.score === undefined ? 'undefined' : Number.isNaN(o.score) ? 'NaN' : (0, payload_js_1.kindOf)(o.score)}`);
    }
    return common(o, clamp(o.score), 'code grader');
}
/** Checks an assertion's result: the score is `score` (clamped), else 1 or 0 from `pass`, else 0. */
function assertionResult(r) {
    const o = resultObject(r, 'assertion', '{ pass: true } or { score: 0.5 }');
    let score = 0;
    if (o.score != null) {
        if (typeof o.score !== 'number')
            throw new TypeError(`assertion result: score must be a number from 0 to 1, got ${(0, payload_js_1.kindOf)(o.score)}`);
        score = clamp(o.score);
    }
    else if (o.pass != null) {
        if (typeof o.pass !== 'boolean')
            throw new TypeError(`assertion result: pass must be true or false, got ${(0, payload_js_1.kindOf)(o.pass)}`);
        score = o.pass ? 1 : 0;
    }
    return common(o, score, 'assertion');
}
async function run(io, name, handler, print) {
    try {
        if (typeof handler !== 'function')
            throw new TypeError(`${name} needs a function, got ${(0, payload_js_1.kindOf)(handler)}`);
        const input = (0, input_js_1.parseGraderInput)(io.readStdin());
        io.writeStdout((await print(input)) + '\n');
    }
    catch (err) {
        io.fail((0, process_io_js_1.errorMessage)(err));
    }
}
function runCodeGrader(handler, io) {
    return run(io, 'defineCodeGrader', handler, async (input) => JSON.stringify(gradeResult(await handler(input))));
}
function runAssertion(handler, io) {
    return run(io, 'defineAssertion', handler, async (input) => JSON.stringify(assertionResult(await handler(input))));
}
function runPromptTemplate(handler, io) {
    return run(io, 'definePromptTemplate', handler, async (input) => {
        const prompt = await handler(input);
        if (typeof prompt !== 'string') {
            throw new TypeError(`prompt template must return a string, got ${prompt === undefined ? 'undefined' : (0, payload_js_1.kindOf)(prompt)}`);
        }
        return prompt;
    });
}
/**
 * Runs a code grader: reads the context from stdin, calls handler (awaiting it when async) and
 * prints `{score, assertions, reasoning?, details?}` with the score clamped to [0, 1]. On error the
 * message goes to stderr and the process exits with code 1.
 *
 * ```ts
 * import { defineCodeGrader } from '@agentv/sdk';
 * export default defineCodeGrader(({ output }) => ({ score: output?.includes('Paris') ? 1 : 0 }));
 * ```
 */
function defineCodeGrader(handler) {
    return (0, worker_js_1.serve)('defineCodeGrader', (io) => runCodeGrader(handler, io));
}
/**
 * Runs a custom assertion (a file in `.agentv/assertions/`, used as `type: <file name>`): the
 * handler returns `{pass}` or `{score}`, with optional `assertions`, `reasoning` and `details`.
 *
 * ```ts
 * import { defineAssertion } from '@agentv/sdk';
 * export default defineAssertion(({ output }) => ({ pass: /hello/i.test(output ?? '') }));
 * ```
 */
function defineAssertion(handler) {
    return (0, worker_js_1.serve)('defineAssertion', (io) => runAssertion(handler, io));
}
/**
 * Runs a prompt template for an llm-grader: the handler returns the grader's prompt.
 *
 * ```ts
 * import { definePromptTemplate } from '@agentv/sdk';
 * export default definePromptTemplate((ctx) => `Criteria: ${ctx.criteria}\nAnswer: ${ctx.output ?? ''}`);
 * ```
 */
function definePromptTemplate(handler) {
    return (0, worker_js_1.serve)('definePromptTemplate', (io) => runPromptTemplate(handler, io));
}
