// agentv's runner of AgentV 5.x `extensions`: calls one lifecycle hook of each module named on
// the command line, in order, and prints what they returned, merged, as the last line of its
// output. Written in plain JavaScript so that it also runs as TypeScript (a copy named .mts is
// started by bun, tsx or Node for TypeScript modules).
//
//   <runtime> extension.mjs HOOK MODULE...   (stdin: {"context": {...}, "state": {...}})
import { pathToFileURL } from 'node:url';

const marker = 'AGENTV_EXTENSION_RESULT ';
const [hook, ...modules] = process.argv.slice(2);

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// normalize keeps the parts of a hook's return AgentV reads.
function normalize(value) {
  if (!isObject(value)) {
    return undefined;
  }
  const out = {};
  if (isObject(value.provider_context) && Object.keys(value.provider_context).length > 0) {
    out.provider_context = value.provider_context;
  }
  if (isObject(value.metadata) && Object.keys(value.metadata).length > 0) {
    out.metadata = value.metadata;
  }
  if (typeof value.output === 'string') {
    out.output = value.output;
  }
  return out;
}

// merge joins two states: later keys win, outputs are joined by lines.
function merge(left, right) {
  if (!left) return right;
  if (!right) return left;
  const out = {};
  const ctx = { ...(left.provider_context ?? {}), ...(right.provider_context ?? {}) };
  const meta = { ...(left.metadata ?? {}), ...(right.metadata ?? {}) };
  if (Object.keys(ctx).length > 0) out.provider_context = ctx;
  if (Object.keys(meta).length > 0) out.metadata = meta;
  const output = [left.output, right.output].filter(Boolean).join('\n');
  if (output) out.output = output;
  return out;
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function main() {
  const input = JSON.parse((await readStdin()) || '{}');
  const base = isObject(input.context) ? input.context : {};
  let state = isObject(input.state) ? input.state : undefined;
  for (const module of modules) {
    const imported = await import(pathToFileURL(module).href);
    // A CommonJS module's exports arrive as its default export.
    const fn = imported[hook] ?? (isObject(imported.default) ? imported.default[hook] : undefined);
    if (typeof fn !== 'function') {
      throw new Error(`extension file://${module}:${hook}: the module does not export a function ${hook}`);
    }
    const context = { ...base, hook_name: hook };
    if (state?.provider_context !== undefined) {
      context.provider_context = state.provider_context;
    }
    state = merge(state, normalize(await fn(context, { hookName: hook })));
  }
  await new Promise((resolve) => {
    process.stdout.write(`\n${marker}${JSON.stringify(state ?? {})}\n`, resolve);
  });
}

// The exit is explicit: a hook may leave timers or sockets open.
main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
