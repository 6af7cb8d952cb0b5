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

// base is the smallest payload AgentV 4.42.4's @agentv/sdk accepts.
const base = { criteria: 'C', expected_output: [], input: [], input_files: [] };

test('4.x names are used as sent', () => {
  const ctx = toGraderInput({
    criteria: 'Names Paris', output: 'Paris', messages: [{ role: 'user', content: 'Q' }], expected_output: [],
    input: [{ role: 'user', content: 'Q' }], input_files: ['/a'], token_usage: { input: 3, output: 4 }, cost_usd: 0.5,
    duration_ms: 9, start_time: 's', end_time: 'e', file_changes: 'diff', workspace_path: '/w', metadata: { a_b: 1 },
    trace_summary: { event_count: 1, tool_calls: { get_weather: 2 }, error_count: 0 }, config: { max_words: 5 },
    trace: {
      event_count: 1, tool_calls: { get_weather: 1 }, error_count: 0, messages: [{ role: 'assistant', content: 'A', tool_calls: [{ tool: 'get_weather', id: 'c1' }] }],
      events: [{ event_id: 'message-0', ordinal: 0, type: 'message', message: { role: 'assistant', content: 'A' } },
        { event_id: 'message-0-tool-0', parent_event_id: 'message-0', ordinal: 1, type: 'tool_call', tool: { name: 'get_weather', call_id: 'c1', status: 'ok' } }],
    },
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
  assert.deepEqual(ctx.traceSummary, { eventCount: 1, toolCalls: { getWeather: 2 }, errorCount: 0 });
  assert.deepEqual(ctx.config, { maxWords: 5 });
  assert.equal(ctx.trace.events[1].tool.callId, 'c1');
  assert.deepEqual(ctx.trace.messages[0].toolCalls, [{ tool: 'get_weather', id: 'c1' }]);
});

test('optional fields a payload lacks are null; messages default to none', () => {
  const ctx = toGraderInput(base);
  assert.deepEqual(ctx.messages, []);
  for (const k of ['output', 'metadata', 'trace', 'traceSummary', 'tokenUsage', 'costUsd', 'durationMs', 'fileChanges', 'workspacePath', 'config']) {
    assert.equal(ctx[k], null, k);
  }
});

test('a large answer is read from output_path when first used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-test-'));
  const path = join(dir, 'output.json');
  writeFileSync(path, JSON.stringify('from the file'));
  const ctx = toGraderInput({ ...base, output: null, output_path: path });
  assert.equal(ctx.output, 'from the file');
});

// 4.42.4's toCamelCaseDeep (packages/sdk/src/case-conversion.ts) renames every key, tool names
// and user data included, except keys that start with a capital.
test('camelDeep renames keys as 4.x does, keeping proper names only', () => {
  assert.deepEqual(camelDeep({ a_b: [{ c_d_1: 1 }], Upper_Case: 2, tool_calls_by_name: { get_weather: 1, Read: 2 },
    config: { risk_level: 'x', 'max-depth': 1, user_i_d: 3, _private: 4, a__b: 5, v2_mode: 6 } }),
    { aB: [{ cD1: 1 }], Upper_Case: 2, toolCallsByName: { getWeather: 1, Read: 2 },
      config: { riskLevel: 'x', 'max-depth': 1, userID: 3, Private: 4, a_B: 5, v2Mode: 6 } });
});

// The checks of AgentV 4.42.4's CodeGraderInputSchema (packages/sdk/src/schemas.ts), which a
// grader built on the real @agentv/sdk applies to what agentv sends.
test('payloads 4.42.4 refuses are errors naming the field', async (t) => {
  const cases = [
    ['not an object', [], /expected a JSON object, got an array/],
    ['no criteria', { ...base, criteria: undefined }, /criteria must be a string, got nothing/],
    ['no expected_output', { ...base, expected_output: undefined }, /expected_output must be an array of messages, got nothing/],
    ['no input', { ...base, input: undefined }, /input must be an array of messages, got nothing/],
    ['no input_files', { ...base, input_files: undefined }, /input_files must be an array of paths/],
    ['output a number', { ...base, output: 3 }, /output must be a string, got a number/],
    ['input a string', { ...base, input: 'x' }, /input must be an array of messages/],
    ['a role 4.x does not know', { ...base, input: [{ role: 'developer', content: 'x' }] }, /input\[0\]\.role must be one of assistant, user, system, tool/],
    ['a tool call without a tool', { ...base, messages: [{ role: 'assistant', tool_calls: [{ name: 'x' }] }] }, /messages\[0\]\.tool_calls\[0\]\.tool must be a string/],
    ['a null message name', { ...base, input: [{ role: 'user', name: null }] }, /input\[0\]\.name must be a string, got null/],
    ['config a list', { ...base, config: [1] }, /config must be an object, got an array/],
    ['a trace without events', { ...base, trace: { event_count: 0, tool_calls: {}, error_count: 0, messages: [] } }, /trace\.events must be an array of trace events, got nothing/],
    ['a trace without messages', { ...base, trace: { event_count: 0, tool_calls: {}, error_count: 0, events: [] } }, /trace\.messages must be an array of messages, got nothing/],
    ['a trace event of an unknown type', { ...base, trace: { event_count: 0, tool_calls: {}, error_count: 0, messages: [], events: [{ event_id: 'e', ordinal: 0, type: 'span' }] } }, /trace\.events\[0\]\.type must be one of message/],
    ['a negative ordinal', { ...base, trace: { event_count: 0, tool_calls: {}, error_count: 0, messages: [], events: [{ event_id: 'e', ordinal: -1, type: 'message' }] } }, /trace\.events\[0\]\.ordinal must be a whole number of at least 0/],
    ['a summary without counts', { ...base, trace_summary: { tool_calls: {} } }, /trace_summary\.event_count must be a number, got nothing/],
    ['token usage without output', { ...base, token_usage: { input: 1 } }, /token_usage\.output must be a number, got nothing/],
  ];
  for (const [name, in_, want] of cases) await t.test(name, () => assert.throws(() => toGraderInput(in_), want));
});

test('the 2.5 names are refused, as 4.42.4\'s Python helper refuses them', async (t) => {
  for (const k of ['reference_answer', 'candidate_answer', 'expected_outcome', 'question', 'input_messages', 'expected_messages', 'output_messages', 'actual_output', 'guideline_files', 'output_text', 'input_text']) {
    await t.test(k, () => assert.throws(() => toGraderInput({ ...base, [k]: 'x' }), new RegExp(`deprecated wire fields are not accepted: ${k}`)));
  }
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
  const payload = JSON.stringify({ ...base, output: 'O' });
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
