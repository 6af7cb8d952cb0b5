"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readCodeJudgePayload = readCodeJudgePayload;
const payload_js_1 = require("./payload.js");
const stdin_js_1 = require("./stdin.js");
let cached;
/**
 * Reads the payload from stdin and returns it camelCased (the `@agentv/core` API of AgentV's code judge docs). Stdin can
 * be read only once, so later calls return the same object. Throws when stdin holds no valid payload.
 *
 * ```ts
 * import { readCodeJudgePayload } from '@agentv/core';
 * const { actualOutput, expectedOutput } = readCodeJudgePayload();
 * ```
 */
function readCodeJudgePayload() {
    cached ??= (0, payload_js_1.parseCodeJudgePayload)((0, stdin_js_1.readStdinSync)());
    return cached;
}
