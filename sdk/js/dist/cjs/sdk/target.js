"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TargetInvocationError = exports.TargetNotAvailableError = void 0;
exports.createTargetClient = createTargetClient;
const target_client_js_1 = require("../target-client.js");
/** The proxy's URL is set without its token: the grader was not started by agentv as it should. */
class TargetNotAvailableError extends Error {
    constructor(message) {
        super(message);
        this.name = 'TargetNotAvailableError';
    }
}
exports.TargetNotAvailableError = TargetNotAvailableError;
/** A call the proxy refused or could not make; statusCode 429 means max_calls was reached. */
class TargetInvocationError extends Error {
    statusCode;
    constructor(message, statusCode) {
        super(message);
        this.name = 'TargetInvocationError';
        this.statusCode = statusCode;
    }
}
exports.TargetInvocationError = TargetInvocationError;
function answer(r) {
    const out = { output: r.outputMessages, rawText: r.rawText };
    const usage = r.tokenUsage;
    if (usage)
        out.tokenUsage = usage;
    return out;
}
async function mapped(call) {
    try {
        return await call();
    }
    catch (err) {
        if (err instanceof target_client_js_1.TargetProxyError)
            throw new TargetInvocationError(err.message, err.status);
        throw err;
    }
}
/**
 * Returns a client for the target proxy agentv runs while a code grader with `target:` runs, or
 * undefined when the grader was started without one.
 */
function createTargetClient(env = process.env) {
    if (!env[target_client_js_1.TARGET_PROXY_URL_ENV])
        return undefined;
    if (!env[target_client_js_1.TARGET_PROXY_TOKEN_ENV]) {
        throw new TargetNotAvailableError(`${target_client_js_1.TARGET_PROXY_URL_ENV} is set but ${target_client_js_1.TARGET_PROXY_TOKEN_ENV} is missing`);
    }
    const proxy = (0, target_client_js_1.createTargetClient)(env);
    if (!proxy)
        return undefined;
    const strip = (r) => {
        const req = { question: r.question };
        if (r.systemPrompt !== undefined)
            req.systemPrompt = r.systemPrompt;
        if (r.evalCaseId !== undefined)
            req.evalCaseId = r.evalCaseId;
        if (r.attempt !== undefined)
            req.attempt = r.attempt;
        if (r.target !== undefined)
            req.target = r.target;
        return req;
    };
    return {
        invoke: (request) => mapped(async () => answer(await proxy.invoke(strip(request)))),
        invokeBatch: (requests) => mapped(async () => (await proxy.invokeBatch(requests.map(strip))).map(answer)),
        getInfo: () => mapped(async () => (await proxy.info())),
    };
}
