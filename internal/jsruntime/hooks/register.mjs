// Loaded by agentv with `node --import` (also through tsx) before a user script. It lets
// `import ... from '@agentv/eval'` (and '@agentv/core', '@agentv/sdk') fall back to the copy of the SDK that
// agentv wrote next to this file when normal resolution finds none, so a user's own
// node_modules copy still wins. Node ignores NODE_PATH for ESM imports, hence a resolve hook.
import * as mod from 'node:module';
import { pathToFileURL } from 'node:url';

const SDK = /^@agentv\/(eval|core|sdk)(\/.*)?$/;
const notFound = (err) => err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'MODULE_NOT_FOUND';

if (typeof mod.registerHooks === 'function') {
  // Node >= 22.15: synchronous in-thread hooks, which also see require().
  const require = mod.createRequire(import.meta.url);
  mod.registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (err) {
        if (!SDK.test(specifier) || !notFound(err)) throw err;
        if (context.conditions?.includes('require')) {
          return { url: pathToFileURL(require.resolve(specifier)).href, shortCircuit: true };
        }
        return nextResolve(specifier, { ...context, parentURL: import.meta.url });
      }
    },
  });
} else if (typeof mod.register === 'function') {
  // Node 20.6 to 22.14: asynchronous hooks for import; require() uses NODE_PATH, which agentv sets.
  mod.register('./hooks.mjs', import.meta.url);
}
