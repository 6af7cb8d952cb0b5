import { defineCodeGrader } from '@agentv/sdk';

export default defineCodeGrader(({ output, input }) => ({
  score: 0.5,
  assertions: [
    { text: 'answered', passed: (output ?? '').length > 0 },
    { text: 'asked about France', passed: JSON.stringify(input).includes('France') },
  ],
}));
