import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(() => ({ score: 'high' }));
