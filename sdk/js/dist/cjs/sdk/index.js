"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.z = exports.TargetInvocationError = exports.TargetNotAvailableError = exports.createTargetClient = exports.parseGraderInput = exports.toGraderInput = exports.definePromptTemplate = exports.defineAssertion = exports.defineCodeGrader = void 0;
/**
 * `@agentv/sdk`: the AgentV 4.x helpers for code graders, custom assertions and prompt templates,
 * as agentv carries them. agentv runs the script with the evaluation context as JSON on stdin;
 * these helpers read it, camelCase its keys, call your handler and print what agentv expects.
 */
var run_js_1 = require("./run.js");
Object.defineProperty(exports, "defineCodeGrader", { enumerable: true, get: function () { return run_js_1.defineCodeGrader; } });
Object.defineProperty(exports, "defineAssertion", { enumerable: true, get: function () { return run_js_1.defineAssertion; } });
Object.defineProperty(exports, "definePromptTemplate", { enumerable: true, get: function () { return run_js_1.definePromptTemplate; } });
var input_js_1 = require("./input.js");
Object.defineProperty(exports, "toGraderInput", { enumerable: true, get: function () { return input_js_1.toGraderInput; } });
Object.defineProperty(exports, "parseGraderInput", { enumerable: true, get: function () { return input_js_1.parseGraderInput; } });
var target_js_1 = require("./target.js");
Object.defineProperty(exports, "createTargetClient", { enumerable: true, get: function () { return target_js_1.createTargetClient; } });
Object.defineProperty(exports, "TargetNotAvailableError", { enumerable: true, get: function () { return target_js_1.TargetNotAvailableError; } });
Object.defineProperty(exports, "TargetInvocationError", { enumerable: true, get: function () { return target_js_1.TargetInvocationError; } });
var zod_js_1 = require("./zod.js");
Object.defineProperty(exports, "z", { enumerable: true, get: function () { return zod_js_1.z; } });
