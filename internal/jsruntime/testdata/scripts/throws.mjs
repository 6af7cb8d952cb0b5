import { defineCodeJudge } from '@agentv/eval';

defineCodeJudge(async () => {
  throw new Error('judge crashed on purpose');
});
