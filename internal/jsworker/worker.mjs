// agentv's grader worker (internal/jsworker). It loads one script written with the define*
// runners of @agentv/eval or @agentv/sdk once, then runs the handler the script registered for
// each request, so a call costs a function call instead of a runtime start.
//
// argv: [runtime, worker.mjs, fence, script, ...args]; the script sees [runtime, script, ...args].
// fd 3 brings requests ("<length>\n" and that many bytes: the payload a spawned script reads on
// stdin); fd 4 takes one JSON line per answer. The handler writes to the worker's own stdout and
// stderr, as it would spawned; after each call the worker writes the fence to both, so agentv knows
// where the call's output ends and nothing the handler prints can be read as the protocol.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

const [runtime, , fenceText, script, ...args] = process.argv;
process.argv = [runtime, script, ...args];
const fence = new TextEncoder().encode(fenceText);
const pause = new Int32Array(new SharedArrayBuffer(4));

let run;
let registered = 0;
globalThis[Symbol.for('agentv.worker')] = {
  register(_kind, r) {
    run = r;
    registered++;
  },
};

function writeAll(fd, bytes) {
  for (let at = 0; at < bytes.length; ) {
    try {
      at += fs.writeSync(fd, bytes, at, bytes.length - at);
    } catch (err) {
      if (err?.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

const answer = (obj) => writeAll(4, new TextEncoder().encode(JSON.stringify(obj) + '\n'));

// The fence goes through the same stream as the handler's writes, after them: a runtime that
// queues writes (bun) sends it only once they are out.
const fenced = (s) =>
  new Promise((resolve) => {
    s.write(fence, () => resolve());
  });

async function endOutput() {
  await Promise.all([fenced(process.stdout), fenced(process.stderr)]);
}

// Requests are read synchronously: the worker has nothing else to do between calls.
let pending = new Uint8Array(0);
function readMore() {
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    let n;
    try {
      n = fs.readSync(3, buf, 0, buf.length, null);
    } catch (err) {
      if (err?.code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 1);
        continue;
      }
      throw err;
    }
    if (n === 0) return false;
    const next = new Uint8Array(pending.length + n);
    next.set(pending);
    next.set(buf.subarray(0, n), pending.length);
    pending = next;
    return true;
  }
}

function readRequest() {
  let nl;
  while ((nl = pending.indexOf(10)) < 0) if (!readMore()) return null;
  const header = new TextDecoder().decode(pending.subarray(0, nl));
  if (!/^[0-9]+$/.test(header)) return null; // not agentv speaking: stop
  const size = Number(header);
  while (pending.length < nl + 1 + size) if (!readMore()) return null;
  const body = pending.slice(nl + 1, nl + 1 + size);
  pending = pending.slice(nl + 1 + size);
  return body;
}

// Work a handler leaves running (a timer, a socket) keeps a spawned script alive until it ends;
// the call ends then here too. Node counts it; bun reports none, so there a call ends with its
// handler.
const resources = () => (typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo() : []);
function extra(before) {
  const left = new Map();
  for (const r of before) left.set(r, (left.get(r) ?? 0) + 1);
  let n = 0;
  for (const r of resources()) {
    const k = left.get(r) ?? 0;
    if (k > 0) left.set(r, k - 1);
    else n++;
  }
  return n;
}
async function settle(before) {
  await new Promise((resolve) => setImmediate(resolve));
  while (extra(before) > 0) await new Promise((resolve) => setTimeout(resolve, 1));
}

try {
  await import(pathToFileURL(script).href);
} catch (err) {
  await endOutput();
  answer({ ready: false, why: String(err?.message ?? err) });
  process.exit(0);
}
await endOutput();
if (registered !== 1 || typeof run !== 'function') {
  answer({ ready: false, why: `the script registered ${registered} handlers` });
  process.exit(0);
}
answer({ ready: true });

// What a call may not leave changed for the next one: the global object's names, the
// environment and the working directory. A change makes agentv start a fresh worker.
const globalNames = new Set(Object.getOwnPropertyNames(globalThis));
const envText = JSON.stringify(process.env);
const cwd = process.cwd();
const decoder = new TextDecoder('utf-8');

for (;;) {
  const body = readRequest();
  if (body === null) process.exit(0);
  const stdin = decoder.decode(body);
  let exit = 0;
  const io = {
    readStdin: () => stdin,
    writeStdout(text) {
      process.stdout.write(text);
    },
    fail(message) {
      process.stderr.write(message.endsWith('\n') ? message : message + '\n');
      exit = 1;
    },
  };
  const before = resources();
  process.exitCode = undefined;
  await run(io);
  if (exit === 0) await settle(before);
  if (exit === 0 && typeof process.exitCode === 'number') exit = process.exitCode;
  await endOutput();
  const clean =
    exit === 0 &&
    process.cwd() === cwd &&
    JSON.stringify(process.env) === envText &&
    Object.getOwnPropertyNames(globalThis).every((n) => globalNames.has(n));
  answer({ exit, clean });
}
