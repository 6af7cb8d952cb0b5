/**
 * AgentV 4.x's SDK re-exports the zod library as `z`. agentv does not carry zod, so an import of
 * `z` still links, and using it says what to do instead.
 */
const message = "'z' is not available from the @agentv/sdk that agentv provides: install zod (npm install zod) and import { z } from 'zod', or install @agentv/sdk in your project";
export const z = new Proxy({}, {
    get(_target, prop) {
        if (prop === Symbol.toPrimitive || prop === 'then' || typeof prop === 'symbol')
            return undefined;
        throw new Error(message);
    },
});
