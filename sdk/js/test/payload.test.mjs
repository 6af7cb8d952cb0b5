// Unit tests of the payload conversion (compiled dist/, as users get it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { camelKey, toCodeJudgeInput, parseCodeJudgePayload, PayloadError } from '../dist/payload.js';

const fixture = readFileSync(new URL('./fixtures/payload.json', import.meta.url), 'utf8');

test('camelKey', () => {
  const cases = {
    question: 'question',
    expected_output: 'expectedOutput',
    tool_calls_by_name: 'toolCallsByName',
    a_b_c: 'aBC',
    cost_usd: 'costUsd',
    alreadyCamel: 'alreadyCamel',
    _private: '_private',
    trailing_: 'trailing_',
    double__under: 'doubleUnder',
  };
  for (const [in_, want] of Object.entries(cases)) assert.equal(camelKey(in_), want, in_);
});

test('payload own keys and message keys are camelCased, user data is not', () => {
  const got = parseCodeJudgePayload(fixture);
  const expected = [{ role: 'assistant', content: { riskLevel: 'High', risk_notes: ['flood zone'] } }];
  assert.deepEqual(got.expectedOutput, expected);
  assert.deepEqual(got.expectedMessages, expected);
  assert.deepEqual(got.input, [{ role: 'user', content: 'What is the risk level?' }]);
  assert.deepEqual(got.inputMessages, got.input);
  assert.equal(got.question, 'What is the risk level?');
  assert.equal(got.expectedOutcome, 'Correctly classify as high risk');
  assert.equal(got.actualOutput, 'The risk level is High.');
  assert.equal(got.candidateAnswer, 'The risk level is High.');
  assert.equal(got.referenceAnswer, null);
  assert.deepEqual(got.guidelineFiles, ['/evals/guidelines/risk.md']);
  assert.deepEqual(got.inputFiles, ['/evals/data/claim.txt']);
  assert.deepEqual(got.outputMessages, [
    {
      role: 'assistant',
      content: 'The risk level is High.',
      toolCalls: [
        { tool: 'get_weather', input: { city_name: 'Paris', unitSystem: 'metric' }, output: { temp_c: 21 }, id: 'call_1', durationMs: 12 },
      ],
      durationMs: 340,
      metadata: { model_name: 'mock' },
    },
  ]);
  assert.deepEqual(got.traceSummary, {
    eventCount: 1,
    toolNames: ['get_weather'],
    toolCallsByName: { get_weather: 1 },
    errorCount: 0,
    tokenUsage: { input: 10, output: 5, cached: 2 },
    costUsd: 0.001,
    durationMs: 340,
  });
  assert.deepEqual(got.config, { rubric: 'Be strict', pass_mark: 0.8, nestedThing: { snake_key: 1 } });
  for (const k of Object.keys(got)) assert.ok(!k.includes('_'), `snake key ${k} left in the input`);
});

test('only new names: old names are filled, and the other way round', () => {
  const fromNew = toCodeJudgeInput({ question: 'q', actual_output: 'a', expected_output: [{ role: 'assistant', content: 'x' }], input: [{ role: 'user', content: 'q' }] });
  assert.equal(fromNew.candidateAnswer, 'a');
  assert.deepEqual(fromNew.expectedMessages, [{ role: 'assistant', content: 'x' }]);
  assert.deepEqual(fromNew.inputMessages, [{ role: 'user', content: 'q' }]);
  const fromOld = toCodeJudgeInput({ question: 'q', candidate_answer: 'a', expected_messages: [{ role: 'assistant', content: 'x' }], input_messages: [] });
  assert.equal(fromOld.actualOutput, 'a');
  assert.deepEqual(fromOld.expectedOutput, [{ role: 'assistant', content: 'x' }]);
  assert.deepEqual(fromOld.input, []);
});

test('absent fields get empty values', () => {
  const got = toCodeJudgeInput({});
  assert.deepEqual(
    { ...got },
    {
      question: '', expectedOutcome: '', expectedOutput: [], expectedMessages: [], input: [], inputMessages: [],
      actualOutput: '', candidateAnswer: '', outputMessages: null, referenceAnswer: null, guidelineFiles: [],
      inputFiles: [], traceSummary: null, config: null,
    },
  );
});

test('a camelCase payload is accepted as is', () => {
  const got = toCodeJudgeInput({ question: 'q', actualOutput: 'a', traceSummary: null, outputMessages: [{ role: 'assistant', toolCalls: [] }] });
  assert.equal(got.candidateAnswer, 'a');
  assert.deepEqual(got.outputMessages, [{ role: 'assistant', toolCalls: [] }]);
});

test('keys the SDK does not know are kept, camelCased', () => {
  const got = toCodeJudgeInput({ question: 'q', eval_case_id: 'c1' });
  assert.equal(got.evalCaseId, 'c1');
});

test('invalid payloads are rejected with the field to blame', () => {
  const cases = [
    ['empty stdin', '  \n', /no payload on stdin/],
    ['not JSON', '{nope', /not JSON/],
    ['array', '[]', /expected a JSON object, got an array/],
    ['question type', '{"question": 3}', /question must be a string, got a number/],
    ['messages type', '{"expected_output": "x"}', /expected_output must be an array of messages, got a string/],
    ['message type', '{"input": ["hi"]}', /input\[0\] must be a message object, got a string/],
    ['tool calls', '{"output_messages": [{"role": "assistant", "tool_calls": {}}]}', /output_messages\[0\]\.tool_calls must be an array/],
    ['files', '{"guideline_files": [1]}', /guideline_files must be an array of strings/],
    ['config', '{"config": [1]}', /config must be an object or null, got an array/],
    ['reference', '{"reference_answer": {}}', /reference_answer must be a string or null/],
    ['trace', '{"trace_summary": "x"}', /trace_summary must be an object or null/],
  ];
  for (const [name, text, want] of cases) {
    assert.throws(() => parseCodeJudgePayload(text), (err) => err instanceof PayloadError && want.test(err.message), name);
  }
});
