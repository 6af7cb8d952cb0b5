import { kindOf } from '../payload.js';
import { errorMessage } from '../process-io.js';
import { serve } from '../worker.js';
import { parseGraderInput } from './input.js';
function clamp(score) {
    return Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
}
function assertionList(v, who) {
    if (v == null)
        return [];
    if (!Array.isArray(v))
        throw new TypeError(`${who} result: assertions must be an array of {text, passed}, got ${kindOf(v)}`);
    return v.map((a, i) => {
        if (typeof a !== 'object' || a === null || typeof a.text !== 'string' || typeof a.passed !== 'boolean') {
            throw new TypeError(`${who} result: assertions[${i}] must be {text: string, passed: boolean, evidence?: string}, got ${kindOf(a)}`);
        }
        const e = { text: a.text, passed: a.passed };
        if (a.evidence != null) {
            if (typeof a.evidence !== 'string')
                throw new TypeError(`${who} result: assertions[${i}].evidence must be a string, got ${kindOf(a.evidence)}`);
            e.evidence = a.evidence;
        }
        return e;
    });
}
function resultObject(r, who, example) {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
        throw new TypeError(`${who} must return an object like ${example}, got ${r === undefined ? 'undefined' : kindOf(r)}`);
    }
    return r;
}
/** The fields every verdict shares: assertions, reasoning and details, checked. */
function common(o, score, who) {
    const out = { score, assertions: assertionList(o.assertions, who) };
    if (o.reasoning != null) {
        if (typeof o.reasoning !== 'string')
            throw new TypeError(`${who} result: reasoning must be a string, got ${kindOf(o.reasoning)}`);
        out.reasoning = o.reasoning;
    }
    if (o.details != null) {
        if (typeof o.details !== 'object' || Array.isArray(o.details)) {
            throw new TypeError(`${who} result: details must be an object, got ${kindOf(o.details)}`);
        }
        out.details = o.details;
    }
    return out;
}
/** Checks a code grader's result: a number score, clamped to [0, 1]. */
export function gradeResult(r) {
    const o = resultObject(r, 'code grader', '{ score: 1, assertions: [] }');
    if (typeof o.score !== 'number' || Number.isNaN(o.score)) {
        throw new TypeError(`code grader result: score must be a number from 0 to 1, got ${o.score === undefined ? 'undefined' : Number.isNaN(o.score) ? 'NaN' : kindOf(o.score)}`);
    }
    return common(o, clamp(o.score), 'code grader');
}
/** Checks an assertion's result: the score is `score` (clamped), else 1 or 0 from `pass`, else 0. */
export function assertionResult(r) {
    const o = resultObject(r, 'assertion', '{ pass: true } or { score: 0.5 }');
    let score = 0;
    if (o.score != null) {
        if (typeof o.score !== 'number')
            throw new TypeError(`assertion result: score must be a number from 0 to 1, got ${kindOf(o.score)}`);
        score = clamp(o.score);
    }
    else if (o.pass != null) {
        if (typeof o.pass !== 'boolean')
            throw new TypeError(`assertion result: pass must be true or false, got ${kindOf(o.pass)}`);
        score = o.pass ? 1 : 0;
    }
    return common(o, score, 'assertion');
}
async function run(io, name, handler, print) {
    try {
        if (typeof handler !== 'function')
            throw new TypeError(`${name} needs a function, got ${kindOf(handler)}`);
        const input = parseGraderInput(io.readStdin());
        io.writeStdout((await print(input)) + '\n');
    }
    catch (err) {
        io.fail(errorMessage(err));
    }
}
export function runCodeGrader(handler, io) {
    return run(io, 'defineCodeGrader', handler, async (input) => JSON.stringify(gradeResult(await handler(input))));
}
export function runAssertion(handler, io) {
    return run(io, 'defineAssertion', handler, async (input) => JSON.stringify(assertionResult(await handler(input))));
}
export function runPromptTemplate(handler, io) {
    return run(io, 'definePromptTemplate', handler, async (input) => {
        const prompt = await handler(input);
        if (typeof prompt !== 'string') {
            throw new TypeError(`prompt template must return a string, got ${prompt === undefined ? 'undefined' : kindOf(prompt)}`);
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
export function defineCodeGrader(handler) {
    return serve('defineCodeGrader', (io) => runCodeGrader(handler, io));
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
export function defineAssertion(handler) {
    return serve('defineAssertion', (io) => runAssertion(handler, io));
}
/**
 * Runs a prompt template for an llm-grader: the handler returns the grader's prompt.
 *
 * ```ts
 * import { definePromptTemplate } from '@agentv/sdk';
 * export default definePromptTemplate((ctx) => `Criteria: ${ctx.criteria}\nAnswer: ${ctx.output ?? ''}`);
 * ```
 */
export function definePromptTemplate(handler) {
    return serve('definePromptTemplate', (io) => runPromptTemplate(handler, io));
}
