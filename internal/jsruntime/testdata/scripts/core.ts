import { readCodeJudgePayload, type CodeJudgePayload } from '@agentv/core';

const payload: CodeJudgePayload = readCodeJudgePayload();
console.log(
  JSON.stringify({
    score: payload.actualOutput.includes('High') ? 1 : 0,
    details: { expected: payload.expectedOutput[0]?.content, snakeKeys: Object.keys(payload).filter((k) => k.includes('_')) },
  }),
);
