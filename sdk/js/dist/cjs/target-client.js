"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TargetProxyError = exports.TARGET_PROXY_TOKEN_ENV = exports.TARGET_PROXY_URL_ENV = void 0;
exports.createTargetClient = createTargetClient;
const payload_js_1 = require("./payload.js");
/** Environment variables agentv sets for a code judge whose evaluator has `target:`. */
exports.TARGET_PROXY_URL_ENV = 'AGENTV_TARGET_PROXY_URL';
exports.TARGET_PROXY_TOKEN_ENV = 'AGENTV_TARGET_PROXY_TOKEN';
/** A call the proxy refused or could not make; status is the HTTP status (429: max_calls reached). */
class TargetProxyError extends Error {
    status;
    constructor(message, status) {
        super(message);
        this.name = 'TargetProxyError';
        this.status = status;
    }
}
exports.TargetProxyError = TargetProxyError;
/**
 * Returns a client for the target proxy agentv runs while a code judge with `target: true` or
 * `target: {max_calls: n}` is running, or undefined when the judge was started without one.
 *
 * ```ts
 * const target = createTargetClient();
 * const { rawText } = await target!.invoke({ question: `Is this polite? ${actualOutput}` });
 * ```
 */
function createTargetClient(env = process.env) {
    const url = env[exports.TARGET_PROXY_URL_ENV];
    const token = env[exports.TARGET_PROXY_TOKEN_ENV];
    if (!url || !token)
        return undefined;
    const base = url.replace(/\/+$/, '');
    async function call(method, path, body) {
        const res = await fetch(base + path, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        let data;
        try {
            data = JSON.parse(text);
        }
        catch {
            throw new TargetProxyError(`target proxy ${path}: answered ${res.status} with non-JSON: ${text.slice(0, 200)}`, res.status);
        }
        if (!res.ok) {
            const msg = typeof data?.error === 'string' ? data.error : text.slice(0, 200);
            throw new TargetProxyError(`target proxy ${path}: ${res.status}: ${msg}`, res.status);
        }
        if (typeof data !== 'object' || data === null || Array.isArray(data)) {
            throw new TargetProxyError(`target proxy ${path}: want a JSON object, got ${(0, payload_js_1.kindOf)(data)}`, res.status);
        }
        return data;
    }
    const answer = (o, where) => {
        const r = (o ?? {});
        return {
            outputMessages: (0, payload_js_1.convertMessages)(r.outputMessages ?? [], `${where}.outputMessages`),
            rawText: typeof r.rawText === 'string' ? r.rawText : '',
        };
    };
    return {
        async info() {
            return (await call('GET', '/info'));
        },
        async invoke(request) {
            return answer(await call('POST', '/invoke', request), 'invoke');
        },
        async invokeBatch(requests) {
            const r = await call('POST', '/invokeBatch', { requests });
            const list = Array.isArray(r.responses) ? r.responses : [];
            return list.map((o, i) => answer(o, `invokeBatch.responses[${i}]`));
        },
    };
}
