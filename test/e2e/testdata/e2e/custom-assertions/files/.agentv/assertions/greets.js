import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output }) => ({ pass: /hello/i.test(output ?? '') }));
