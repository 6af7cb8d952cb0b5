/**
 * `@agentv/eval`: write agentv prompt templates and code judges in TypeScript or JavaScript.
 *
 * agentv runs the script with the evaluation context as JSON on stdin; these helpers read it,
 * camelCase the payload's own keys (user data keeps its keys), call your handler and print what
 * agentv expects.
 */
export { definePromptTemplate } from './prompt-template.js';
export { defineCodeJudge } from './code-judge.js';
export { readCodeJudgePayload } from './read-payload.js';
export { parseCodeJudgePayload, toCodeJudgeInput, PayloadError } from './payload.js';
export { createTargetClient, TargetProxyError, TARGET_PROXY_URL_ENV, TARGET_PROXY_TOKEN_ENV, } from './target-client.js';
