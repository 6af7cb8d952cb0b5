// Runs fixture scripts as agentv does: a child process (of this runtime: node or bun) with the
// payload on stdin, checking stdout, stderr and the exit code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const payload = readFileSync(new URL('./fixtures/payload.json', import.meta.url), 'utf8');

function run(script, stdin = payload) {
  const path = fileURLToPath(new URL(`./fixtures/${script}`, import.meta.url));
  const r = spawnSync(process.execPath, [path], { input: stdin, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const cases = [
  {
    name: 'async template prints the prompt',
    script: 'template.mjs',
    code: 0,
    stdout: 'Question: What is the risk level?\nAnswer: The risk level is High.\nRisk: High\nRubric: Be strict\n',
  },
  {
    name: 'judge prints clamped JSON with user data keys intact',
    script: 'judge.mjs',
    code: 0,
    stdout: '{"score":1,"hits":["mentions High"],"misses":[],"details":{"tool":"get_weather","city_name":"Paris","calls":{"get_weather":1}}}\n',
  },
  {
    name: 'CommonJS judge',
    script: 'judge.cjs',
    code: 0,
    stdout: '{"score":1,"hits":[],"misses":[],"reasoning":"Correctly classify as high risk"}\n',
  },
  { name: 'empty template output', script: 'empty.mjs', code: 0, stdout: '\n' },
  {
    name: 'readCodeJudgePayload returns one camelCase object',
    script: 'read-payload.mjs',
    code: 0,
    stdout: '{"same":true,"actualOutput":"The risk level is High.","content":{"riskLevel":"High","risk_notes":["flood zone"]}}\n',
  },
  { name: 'throwing template', script: 'throws.mjs', code: 1, stdout: '', stderr: 'template exploded: missing rubric\n' },
  { name: 'failed judge exits despite open handles', script: 'hangs-after-error.mjs', code: 1, stdout: '', stderr: 'judge failed with a timer open\n' },
  { name: 'no payload', script: 'judge.mjs', stdin: '', code: 1, stdout: '', stderrMatch: /no payload on stdin/ },
];

for (const c of cases) {
  test(c.name, () => {
    const got = run(c.script, c.stdin);
    assert.equal(got.stdout, c.stdout, `stdout (stderr: ${got.stderr})`);
    assert.equal(got.code, c.code, `exit code (stderr: ${got.stderr})`);
    if (c.stderr !== undefined) assert.equal(got.stderr, c.stderr);
    if (c.stderrMatch) assert.match(got.stderr, c.stderrMatch);
  });
}
