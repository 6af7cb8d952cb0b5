import { defineCodeJudge, type CodeJudgeInput, type CodeJudgeResult } from '@agentv/eval';

const low = 0.25 as const;

function judge({ candidateAnswer, expectedOutcome }: CodeJudgeInput): CodeJudgeResult {
  const ok: boolean = candidateAnswer.includes('High');
  return {
    score: ok ? low : 0,
    misses: ['no reasoning given'],
    reasoning: `outcome: ${expectedOutcome}`,
  };
}

export default defineCodeJudge(async (input) => judge(input));
