// Unit tests of the code judge result check and of the runners, with an in-memory process surface.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeResult, runCodeJudge } from '../dist/code-judge.js';
import { runPromptTemplate } from '../dist/prompt-template.js';

function fakeIO(stdin) {
  const io = { out: '', failed: undefined };
  io.readStdin = () => stdin;
  io.writeStdout = (s) => { io.out += s; };
  io.fail = (m) => { io.failed = m; };
  return io;
}

const payload = JSON.stringify({ question: 'Capital of France?', candidate_answer: 'Paris', config: { rubric_text: 'r' } });

test('normalizeResult', async (t) => {
  const cases = [
    ['clamps high', { score: 3 }, { score: 1, hits: [], misses: [] }],
    ['clamps low', { score: -0.5 }, { score: 0, hits: [], misses: [] }],
    ['infinity', { score: Infinity }, { score: 1, hits: [], misses: [] }],
    ['drops blank hits', { score: 0.5, hits: ['a', ' ', ''], misses: ['b'] }, { score: 0.5, hits: ['a'], misses: ['b'] }],
    ['keeps reasoning and details', { score: 1, reasoning: 'ok', details: { per_item: [1] } }, { score: 1, hits: [], misses: [], reasoning: 'ok', details: { per_item: [1] } }],
  ];
  for (const [name, in_, want] of cases) await t.test(name, () => assert.deepEqual(normalizeResult(in_), want));
  const bad = [
    ['undefined', undefined, /got undefined/],
    ['array', [], /got an array/],
    ['no score', {}, /score must be a number from 0 to 1, got undefined/],
    ['string score', { score: '1' }, /got a string/],
    ['NaN', { score: NaN }, /got NaN/],
    ['hits', { score: 1, hits: 'a' }, /hits must be an array of strings/],
    ['reasoning', { score: 1, reasoning: 3 }, /reasoning must be a string/],
    ['details', { score: 1, details: [1] }, /details must be an object/],
  ];
  for (const [name, in_, want] of bad) await t.test(`rejects ${name}`, () => assert.throws(() => normalizeResult(in_), want));
});

test('runCodeJudge prints the checked result as one JSON line', async () => {
  const io = fakeIO(payload);
  await runCodeJudge(async (ctx) => ({ score: ctx.candidateAnswer === 'Paris' ? 2 : 0, hits: ['capital'], details: { rubric_text: ctx.config.rubric_text } }), io);
  assert.equal(io.failed, undefined);
  assert.equal(io.out, '{"score":1,"hits":["capital"],"misses":[],"details":{"rubric_text":"r"}}\n');
});

test('runPromptTemplate awaits the handler and prints the prompt', async () => {
  const io = fakeIO(payload);
  await runPromptTemplate(async (ctx) => {
    await new Promise((r) => setTimeout(r, 1));
    return `Q: ${ctx.question}\nA: ${ctx.candidateAnswer}`;
  }, io);
  assert.equal(io.failed, undefined);
  assert.equal(io.out, 'Q: Capital of France?\nA: Paris\n');
});

test('runners report failures through fail', async (t) => {
  const cases = [
    ['template throws', (io) => runPromptTemplate(() => { throw new Error('boom in template'); }, io), 'boom in template'],
    ['template rejects', (io) => runPromptTemplate(async () => Promise.reject(new Error('async boom')), io), 'async boom'],
    ['template returns a number', (io) => runPromptTemplate(() => 42, io), 'prompt template must return a string, got a number'],
    ['template without handler', (io) => runPromptTemplate(undefined, io), 'definePromptTemplate needs a function, got undefined'],
    ['judge throws a string', (io) => runCodeJudge(() => { throw 'plain string'; }, io), 'plain string'],
    ['judge bad result', (io) => runCodeJudge(() => ({ score: 'high' }), io), 'code judge result: score must be a number from 0 to 1, got a string'],
    ['judge bad payload', (io) => runCodeJudge(() => ({ score: 1 }), { ...io, readStdin: () => '[]' }), 'invalid payload: expected a JSON object, got an array'],
  ];
  for (const [name, run, want] of cases) {
    await t.test(name, async () => {
      const io = fakeIO(payload);
      let failed;
      await run({ ...io, fail: (m) => { failed = m; } });
      assert.equal(failed, want);
      assert.equal(io.out, '', 'nothing on stdout after a failure');
    });
  }
});
