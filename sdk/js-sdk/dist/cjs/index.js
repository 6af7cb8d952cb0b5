"use strict";
// @agentv/sdk for require(): the AgentV 4.x grader helpers from @agentv/eval/sdk.
module.exports = require("@agentv/eval/sdk");
