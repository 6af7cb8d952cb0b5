// Unit tests of the AgentV 4.x helpers (@agentv/eval/sdk, published as @agentv/sdk): the context
// handlers receive, the result checks and the runners, with an in-memory process surface.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toGraderInput, camelDeep } from '../dist/sdk/input.js';
import { assertionResult, gradeResult, runAssertion, runCodeGrader, runPromptTemplate } from '../dist/sdk/run.js';
import * as sdk from '../dist/sdk/index.js';

function fakeIO(stdin) {
  const io = { out: '', failed: undefined };
  io.readStdin = () => stdin;
  io.writeStdout = (s) => { io.out += s; };
  io.fail = (m) => { io.failed = m; };
  return io;
}

test('4.x names are used as sent', () => {
  const ctx = toGraderInput({
    criteria: 'Names Paris', output: 'Paris', messages: [{ role: 'user', content: 'Q' }], expected_output: [],
    input: [{ role: 'user', content: 'Q' }], input_files: ['/a'], token_usage: { input: 3, output: 4 }, cost_usd: 0.5,
    duration_ms: 9, start_time: 's', end_time: 'e', file_changes: 'diff', workspace_path: '/w', metadata: { a_b: 1 },
    trace_summary: { event_count: 1, tool_calls: { get_weather: 2 }, error_count: 0 }, config: { max_words: 5 },
  });
  assert.equal(ctx.criteria, 'Names Paris');
  assert.equal(ctx.output, 'Paris');
  assert.deepEqual(ctx.messages, [{ role: 'user', content: 'Q' }]);
  assert.deepEqual(ctx.inputFiles, ['/a']);
  assert.deepEqual(ctx.tokenUsage, { input: 3, output: 4 });
  assert.equal(ctx.costUsd, 0.5);
  assert.equal(ctx.durationMs, 9);
  assert.deepEqual([ctx.startTime, ctx.endTime, ctx.fileChanges, ctx.workspacePath], ['s', 'e', 'diff', '/w']);
  assert.deepEqual(ctx.metadata, { aB: 1 });
  assert.deepEqual(ctx.traceSummary, { eventCount: 1, toolCalls: { get_weather: 2 }, errorCount: 0 });
  assert.deepEqual(ctx.config, { maxWords: 5 });
});

test('older names fill the 4.x ones', () => {
  const ctx = toGraderInput({
    expected_outcome: 'E', candidate_answer: 'A', input_messages: [{ role: 'user', content: 'Q' }],
    expected_messages: [{ role: 'assistant', content: 'X' }],
    output_messages: [{ role: 'assistant', content: 'A', tool_calls: [{ tool: 't', input: { file_path: 'p' } }] }],
    trace_summary: { event_count: 1, tool_calls_by_name: { read_file: 1 }, error_count: 0, token_usage: { input: 1, output: 2 }, cost_usd: 0.1, duration_ms: 5 },
  });
  assert.equal(ctx.criteria, 'E');
  assert.equal(ctx.output, 'A');
  assert.deepEqual(ctx.input, [{ role: 'user', content: 'Q' }]);
  assert.deepEqual(ctx.expectedOutput, [{ role: 'assistant', content: 'X' }]);
  assert.deepEqual(ctx.messages, [{ role: 'user', content: 'Q' }, { role: 'assistant', content: 'A', toolCalls: [{ tool: 't', input: { filePath: 'p' } }] }]);
  assert.deepEqual(ctx.traceSummary.toolCalls, { read_file: 1 });
  assert.deepEqual(ctx.tokenUsage, { input: 1, output: 2 });
  assert.equal(ctx.costUsd, 0.1);
  assert.equal(ctx.durationMs, 5);
  assert.equal(ctx.config, null);
  assert.equal(ctx.trace, null);
});

test('an answer without output messages is the last message', () => {
  const ctx = toGraderInput({ actual_output: 'hi', input: [{ role: 'user', content: 'Q' }] });
  assert.deepEqual(ctx.messages, [{ role: 'user', content: 'Q' }, { role: 'assistant', content: 'hi' }]);
  assert.deepEqual(toGraderInput({}).messages, []);
  assert.equal(toGraderInput({}).output, null);
  assert.equal(toGraderInput({}).criteria, '');
});

test('a large answer is read from output_path when first used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-test-'));
  const path = join(dir, 'output.json');
  writeFileSync(path, JSON.stringify('from the file'));
  const ctx = toGraderInput({ output: null, output_path: path });
  assert.equal(ctx.output, 'from the file');
});

test('camelDeep renames keys as 4.x does, keeping proper names and tool names', () => {
  assert.deepEqual(camelDeep({ a_b: [{ c_d_1: 1 }], Upper_Case: 2, tool_calls_by_name: { get_weather: 1 } }),
    { aB: [{ cD1: 1 }], Upper_Case: 2, toolCallsByName: { get_weather: 1 } });
});

test('bad payloads are errors naming the field', () => {
  assert.throws(() => toGraderInput([]), /expected a JSON object, got an array/);
  assert.throws(() => toGraderInput({ output: 3 }), /output must be a string, got a number/);
  assert.throws(() => toGraderInput({ input: 'x' }), /input must be an array of messages/);
  assert.throws(() => toGraderInput({ config: [1] }), /config must be an object or null/);
});

test('assertionResult', async (t) => {
  const cases = [
    ['pass true', { pass: true }, { score: 1, assertions: [] }],
    ['pass false', { pass: false }, { score: 0, assertions: [] }],
    ['score wins over pass', { pass: true, score: 0.25 }, { score: 0.25, assertions: [] }],
    ['clamped', { score: 7 }, { score: 1, assertions: [] }],
    ['nothing', {}, { score: 0, assertions: [] }],
    ['checks, reasoning, details', { pass: true, assertions: [{ text: 'a', passed: true, evidence: 'e' }], reasoning: 'r', details: { n: 1 } },
      { score: 1, assertions: [{ text: 'a', passed: true, evidence: 'e' }], reasoning: 'r', details: { n: 1 } }],
  ];
  for (const [name, in_, want] of cases) await t.test(name, () => assert.deepEqual(assertionResult(in_), want));
  const bad = [
    ['undefined', undefined, /assertion must return an object/],
    ['string score', { score: '1' }, /score must be a number/],
    ['string pass', { pass: 'yes' }, /pass must be true or false/],
    ['bad check', { pass: true, assertions: [{ text: 'a' }] }, /assertions\[0\] must be/],
  ];
  for (const [name, in_, want] of bad) await t.test(`rejects ${name}`, () => assert.throws(() => assertionResult(in_), want));
});

test('gradeResult needs a number score', () => {
  assert.deepEqual(gradeResult({ score: -1, assertions: [{ text: 'x', passed: false }] }), { score: 0, assertions: [{ text: 'x', passed: false }] });
  assert.throws(() => gradeResult({ pass: true }), /score must be a number from 0 to 1, got undefined/);
});

test('runners print one line or fail with the message', async () => {
  const payload = JSON.stringify({ criteria: 'C', output: 'O' });
  let io = fakeIO(payload);
  await runAssertion(async ({ output }) => ({ pass: output === 'O' }), io);
  assert.equal(io.out, '{"score":1,"assertions":[]}\n');
  io = fakeIO(payload);
  await runCodeGrader(({ criteria }) => ({ score: 0.5, reasoning: criteria }), io);
  assert.equal(io.out, '{"score":0.5,"assertions":[],"reasoning":"C"}\n');
  io = fakeIO(payload);
  await runPromptTemplate((ctx) => `${ctx.criteria}/${ctx.output}`, io);
  assert.equal(io.out, 'C/O\n');
  io = fakeIO('');
  await runAssertion(() => ({ pass: true }), io);
  assert.match(io.failed, /no payload on stdin/);
  io = fakeIO(payload);
  await runCodeGrader(() => { throw new Error('boom'); }, io);
  assert.equal(io.failed, 'boom');
  io = fakeIO(payload);
  await runPromptTemplate(() => 3, io);
  assert.match(io.failed, /prompt template must return a string, got a number/);
});

test('exports', () => {
  for (const name of ['defineCodeGrader', 'defineAssertion', 'definePromptTemplate', 'createTargetClient', 'TargetInvocationError', 'TargetNotAvailableError']) {
    assert.equal(typeof sdk[name], 'function', name);
  }
  assert.throws(() => sdk.z.object({}), /install zod/);
  assert.equal(sdk.createTargetClient({}), undefined);
  assert.throws(() => sdk.createTargetClient({ AGENTV_TARGET_PROXY_URL: 'http://127.0.0.1:1' }), sdk.TargetNotAvailableError);
});

test('the 4.x target client: output, getInfo and TargetInvocationError', async () => {
  const { createServer } = await import('node:http');
  const seen = [];
  const server = await new Promise((resolve) => {
    const s = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ url: req.url, body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/info') {
          res.end(JSON.stringify({ targetName: 'judge', maxCalls: 2, callCount: 0, availableTargets: ['judge'] }));
        } else if (seen.filter((x) => x.url === '/invoke').length > 1) {
          res.statusCode = 429;
          res.end(JSON.stringify({ error: 'max_calls reached' }));
        } else {
          res.end(JSON.stringify({ outputMessages: [{ role: 'assistant', content: 'yes' }], rawText: 'yes' }));
        }
      });
    });
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const { port } = server.address();
    const client = sdk.createTargetClient({ AGENTV_TARGET_PROXY_URL: `http://127.0.0.1:${port}`, AGENTV_TARGET_PROXY_TOKEN: 'tok' });
    assert.deepEqual(await client.getInfo(), { targetName: 'judge', maxCalls: 2, callCount: 0, availableTargets: ['judge'] });
    assert.deepEqual(await client.invoke({ question: 'q?', systemPrompt: 's', extra: 1 }), { output: [{ role: 'assistant', content: 'yes' }], rawText: 'yes' });
    assert.equal(seen[1].body, '{"question":"q?","systemPrompt":"s"}');
    await assert.rejects(client.invoke({ question: 'again' }), (err) => err instanceof sdk.TargetInvocationError && err.statusCode === 429 && /max_calls reached/.test(err.message));
  } finally {
    server.close();
  }
});
