// Needs a real TypeScript runtime (an enum is not erasable) and the @agentv/eval SDK the
// binary carries; reports which runtime ran it.
import { defineCodeJudge, type CodeJudgeInput } from '@agentv/eval';

enum Verdict {
  Hit = 1,
  Miss = 0,
}

declare const Bun: unknown;

export default defineCodeJudge(({ actualOutput }: CodeJudgeInput) => {
  const v: Verdict = actualOutput.includes('Paris') ? Verdict.Hit : Verdict.Miss;
  return {
    score: v,
    hits: v === Verdict.Hit ? ['names Paris'] : [],
    misses: v === Verdict.Hit ? [] : ['does not name Paris'],
    details: { runtime: typeof Bun !== 'undefined' ? 'bun' : 'node', node: process.versions.node },
  };
});
