// Asynchronous resolve hook registered by register.mjs on Node versions without
// module.registerHooks: '@agentv/eval', '@agentv/core' and '@agentv/sdk' fall back to agentv's copy.
const SDK = /^@agentv\/(eval|core|sdk)(\/.*)?$/;
const notFound = (err) => err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'MODULE_NOT_FOUND';
const from = new URL('./register.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    if (!SDK.test(specifier) || !notFound(err)) throw err;
    return nextResolve(specifier, { ...context, parentURL: from });
  }
}
