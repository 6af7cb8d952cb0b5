import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output, criteria }) => ({
  pass: (output ?? '').includes('Paris') && criteria.includes('Paris'),
}));
