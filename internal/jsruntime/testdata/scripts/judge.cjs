const { defineCodeJudge } = require('@agentv/eval');

defineCodeJudge((ctx) => ({ score: ctx.candidateAnswer ? 1 : 0, reasoning: `cjs saw ${ctx.traceSummary.toolNames.join(',')}` }));
