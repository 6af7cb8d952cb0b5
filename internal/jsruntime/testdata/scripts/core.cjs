const { readCodeJudgePayload } = require('@agentv/core');

const payload = readCodeJudgePayload();
console.log(JSON.stringify({ score: 1, reasoning: payload.inputMessages[0].content }));
