import { parseCodeJudgePayload, kindOf } from './payload.js';
import { errorMessage } from './process-io.js';
import { serve } from './worker.js';
/**
 * Runs a code judge: reads the payload from stdin, calls handler (awaiting it when it is async),
 * checks its result and prints it as one JSON object with the score clamped to [0, 1]. On error the
 * message goes to stderr and the process exits with code 1.
 *
 * ```ts
 * import { defineCodeJudge } from '@agentv/eval';
 * export default defineCodeJudge(({ actualOutput }) => ({ score: actualOutput.includes('Paris') ? 1 : 0 }));
 * ```
 */
export function defineCodeJudge(handler) {
    return serve('defineCodeJudge', (io) => runCodeJudge(handler, io));
}
export async function runCodeJudge(handler, io) {
    try {
        if (typeof handler !== 'function')
            throw new TypeError(`defineCodeJudge needs a function, got ${kindOf(handler)}`);
        const input = parseCodeJudgePayload(io.readStdin());
        const result = normalizeResult(await handler(input));
        io.writeStdout(JSON.stringify(result) + '\n');
    }
    catch (err) {
        io.fail(errorMessage(err));
    }
}
function stringList(v, field) {
    if (v == null)
        return [];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
        throw new TypeError(`code judge result: ${field} must be an array of strings, got ${kindOf(v)}`);
    }
    return v.filter((s) => s.trim() !== '');
}
/**
 * Checks a handler's result and puts it in the shape agentv reads: score clamped to [0, 1], hits and
 * misses as arrays without blank entries, reasoning and details only when given.
 */
export function normalizeResult(r) {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
        throw new TypeError(`code judge must return an object like { score: 1, hits: [], misses: [] }, got ${r === undefined ? 'undefined' : kindOf(r)}`);
    }
    const o = r;
    const score = o.score;
    if (typeof score !== 'number' || Number.isNaN(score)) {
        throw new TypeError(`code judge result: score must be a number from 0 to 1, got ${score === undefined ? 'undefined' : Number.isNaN(score) ? 'NaN' : kindOf(score)}`);
    }
    const out = {
        score: Math.min(1, Math.max(0, score)),
        hits: stringList(o.hits, 'hits'),
        misses: stringList(o.misses, 'misses'),
    };
    if (o.reasoning != null) {
        if (typeof o.reasoning !== 'string')
            throw new TypeError(`code judge result: reasoning must be a string, got ${kindOf(o.reasoning)}`);
        out.reasoning = o.reasoning;
    }
    if (o.details != null) {
        if (typeof o.details !== 'object' || Array.isArray(o.details)) {
            throw new TypeError(`code judge result: details must be an object, got ${kindOf(o.details)}`);
        }
        out.details = o.details;
    }
    return out;
}
