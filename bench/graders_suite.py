#!/usr/bin/env python3
"""Writes an AgentV 4.x suite for bench/graders.sh: N tests on a mock target, each graded once.

    graders_suite.py DIR MODE N TRIALS

MODE python: one Python code-grader a test (`command: [python3, grader.py]`);
MODE node:   one JavaScript code-grader a test written with @agentv/sdk's defineCodeGrader, as
             AgentV 4.42.4 users write it (`command: [node, grader.mjs]`);
MODE mock:   one llm-grader a test, judged by a second mock target (grader_target) whose canned
             answer is a verdict.
TRIALS > 1 adds `execution.trials: {count: TRIALS, strategy: mean}`, which both programs read
and which runs every trial.

The code graders score test i as 1 - (i % 4) / 20 (read from the question): every test passes
AgentV 4.42.4's 0.8 threshold, and scores differ from test to test, so the two programs'
records can be compared test by test; the mock judge scores every test 1. Nothing leaves the machine.
"""
import os
import sys

PY_GRADER = """\
import json, re, sys
payload = json.load(sys.stdin)
m = re.search(r"Question (\\d+):", json.dumps(payload.get("input")))
score = 1 - (int(m.group(1)) % 4) / 20 if m else 0
ok = "42" in json.dumps(payload.get("output"))
print(json.dumps({"score": score if ok else 0, "assertions": [{"text": "answers 42", "passed": ok}]}))
"""

JS_GRADER = """\
import { defineCodeGrader } from '@agentv/sdk';

export default defineCodeGrader(({ input, output }) => {
  const m = /Question (\\d+):/.exec(JSON.stringify(input));
  const score = m ? 1 - (Number(m[1]) % 4) / 20 : 0;
  const ok = JSON.stringify(output ?? '').includes('42');
  return { score: ok ? score : 0, assertions: [{ text: 'answers 42', passed: ok }] };
});
"""

ASSERTION = {
    "python": "      - type: code-grader\n        command: [python3, grader.py]\n",
    "node": "      - type: code-grader\n        command: [node, grader.mjs]\n",
    "mock": "      - type: llm-grader\n",
}


def main():
    out, mode, n, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if mode not in ASSERTION:
        sys.exit(f"mode {mode!r}: want python, node or mock")
    os.makedirs(os.path.join(out, ".agentv"), exist_ok=True)
    os.makedirs(os.path.join(out, "evals"), exist_ok=True)
    with open(os.path.join(out, ".agentv", "targets.yaml"), "w") as f:
        f.write("targets:\n  - name: mock\n    provider: mock\n    response: '{\"answer\":\"42\"}'\n"
                "    grader_target: judge\n  - name: judge\n    provider: mock\n"
                "    response: '{\"score\": 1, \"assertions\": [{\"text\": \"answers 42\", \"passed\": true}]}'\n")
    if mode == "python":
        with open(os.path.join(out, "evals", "grader.py"), "w") as f:
            f.write(PY_GRADER)
    if mode == "node":
        with open(os.path.join(out, "evals", "grader.mjs"), "w") as f:
            f.write(JS_GRADER)
    what = {"python": "one Python code-grader", "node": "one Node code-grader (defineCodeGrader)",
            "mock": "one llm-grader on a mock judge"}[mode]
    with open(os.path.join(out, "evals", "bench.eval.yaml"), "w") as f:
        f.write(f"name: graders-bench\ndescription: {n} tests, {what} each\n"
                "execution:\n  target: mock\n")
        if trials > 1:
            f.write(f"  trials: {{count: {trials}, strategy: mean}}\n")
        f.write("tests:\n")
        for i in range(1, n + 1):
            f.write(f"  - id: t{i:05d}\n    criteria: answers 42\n"
                    f"    input: 'Question {i}: what is six times seven?'\n"
                    "    expected_output: '{\"answer\":\"42\"}'\n"
                    f"    assertions:\n{ASSERTION[mode]}")


if __name__ == "__main__":
    main()
