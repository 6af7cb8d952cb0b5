"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TARGET_PROXY_TOKEN_ENV = exports.TARGET_PROXY_URL_ENV = exports.TargetProxyError = exports.createTargetClient = exports.PayloadError = exports.toCodeJudgeInput = exports.parseCodeJudgePayload = exports.readCodeJudgePayload = exports.defineCodeJudge = exports.definePromptTemplate = void 0;
/**
 * `@agentv/eval`: write agentv prompt templates and code judges in TypeScript or JavaScript.
 *
 * agentv runs the script with the evaluation context as JSON on stdin; these helpers read it,
 * camelCase the payload's own keys (user data keeps its keys), call your handler and print what
 * agentv expects.
 */
var prompt_template_js_1 = require("./prompt-template.js");
Object.defineProperty(exports, "definePromptTemplate", { enumerable: true, get: function () { return prompt_template_js_1.definePromptTemplate; } });
var code_judge_js_1 = require("./code-judge.js");
Object.defineProperty(exports, "defineCodeJudge", { enumerable: true, get: function () { return code_judge_js_1.defineCodeJudge; } });
var read_payload_js_1 = require("./read-payload.js");
Object.defineProperty(exports, "readCodeJudgePayload", { enumerable: true, get: function () { return read_payload_js_1.readCodeJudgePayload; } });
var payload_js_1 = require("./payload.js");
Object.defineProperty(exports, "parseCodeJudgePayload", { enumerable: true, get: function () { return payload_js_1.parseCodeJudgePayload; } });
Object.defineProperty(exports, "toCodeJudgeInput", { enumerable: true, get: function () { return payload_js_1.toCodeJudgeInput; } });
Object.defineProperty(exports, "PayloadError", { enumerable: true, get: function () { return payload_js_1.PayloadError; } });
var target_client_js_1 = require("./target-client.js");
Object.defineProperty(exports, "createTargetClient", { enumerable: true, get: function () { return target_client_js_1.createTargetClient; } });
Object.defineProperty(exports, "TargetProxyError", { enumerable: true, get: function () { return target_client_js_1.TargetProxyError; } });
Object.defineProperty(exports, "TARGET_PROXY_URL_ENV", { enumerable: true, get: function () { return target_client_js_1.TARGET_PROXY_URL_ENV; } });
Object.defineProperty(exports, "TARGET_PROXY_TOKEN_ENV", { enumerable: true, get: function () { return target_client_js_1.TARGET_PROXY_TOKEN_ENV; } });
