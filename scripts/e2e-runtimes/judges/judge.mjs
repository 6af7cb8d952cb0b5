// Plain JavaScript with the @agentv/eval SDK the binary carries; reports which runtime ran it.
import { defineCodeJudge } from '@agentv/eval';

export default defineCodeJudge(({ actualOutput }) => {
  const ok = actualOutput.includes('Paris');
  return {
    score: ok ? 1 : 0,
    misses: ok ? [] : ['does not name Paris'],
    details: { runtime: typeof Bun !== 'undefined' ? 'bun' : 'node', node: process.versions.node },
  };
});
