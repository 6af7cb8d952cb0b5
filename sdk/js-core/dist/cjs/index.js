"use strict";
// @agentv/core: the code judge payload reader AgentV's docs name, kept in @agentv/eval so both
// packages return the same object.
const sdk = require("@agentv/eval");
exports.readCodeJudgePayload = sdk.readCodeJudgePayload;
exports.parseCodeJudgePayload = sdk.parseCodeJudgePayload;
exports.PayloadError = sdk.PayloadError;
