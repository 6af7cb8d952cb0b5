import { defineCodeJudge } from '@agentv/eval';

export default defineCodeJudge((ctx) => {
  const call = ctx.outputMessages[0].toolCalls[0];
  const want = ctx.expectedOutput[0].content.riskLevel;
  return {
    score: ctx.actualOutput.includes(want) ? 1.7 : 0,
    hits: [`risk level ${want}`],
    details: {
      tool: call.tool,
      input: call.input,
      durationMs: call.durationMs,
      expected: ctx.expectedOutput[0].content,
      calls: ctx.traceSummary.toolCallsByName,
      config: ctx.config,
    },
  };
});
