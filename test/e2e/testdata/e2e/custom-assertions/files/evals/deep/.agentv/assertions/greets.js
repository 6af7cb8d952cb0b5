import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(() => ({ score: 0.25 }));
