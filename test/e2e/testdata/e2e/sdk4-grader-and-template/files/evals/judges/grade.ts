import { defineCodeGrader } from '@agentv/sdk';

export default defineCodeGrader(({ output, expectedOutput, criteria, config }) => {
  const want = String(expectedOutput.at(-1)?.content ?? '');
  const checks = [
    { text: 'names the expected city', passed: (output ?? '').includes(want) },
    { text: 'criteria given', passed: criteria.length > 0 },
    { text: 'strict mode', passed: config?.strictMode === true },
  ];
  return { score: checks.filter((c) => c.passed).length / checks.length, assertions: checks };
});
