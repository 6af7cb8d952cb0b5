import { createTargetClient as createProxyClient, TargetProxyError, TARGET_PROXY_TOKEN_ENV, TARGET_PROXY_URL_ENV, } from '../target-client.js';
/** The proxy's URL is set without its token: the grader was not started by agentv as it should. */
export class TargetNotAvailableError extends Error {
    constructor(message) {
        super(message);
        this.name = 'TargetNotAvailableError';
    }
}
/** A call the proxy refused or could not make; statusCode 429 means max_calls was reached. */
export class TargetInvocationError extends Error {
    statusCode;
    constructor(message, statusCode) {
        super(message);
        this.name = 'TargetInvocationError';
        this.statusCode = statusCode;
    }
}
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
        if (err instanceof TargetProxyError)
            throw new TargetInvocationError(err.message, err.status);
        throw err;
    }
}
/**
 * Returns a client for the target proxy agentv runs while a code grader with `target:` runs, or
 * undefined when the grader was started without one.
 */
export function createTargetClient(env = process.env) {
    if (!env[TARGET_PROXY_URL_ENV])
        return undefined;
    if (!env[TARGET_PROXY_TOKEN_ENV]) {
        throw new TargetNotAvailableError(`${TARGET_PROXY_URL_ENV} is set but ${TARGET_PROXY_TOKEN_ENV} is missing`);
    }
    const proxy = createProxyClient(env);
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
