#!/usr/bin/env python3
"""Writes a JSONL eval suite of N cases (plus its sidecar and targets) for scale tests.

    python3 bench/jsonl.py --out DIR --n 100000 [--delay-ms 0] [--fail]

Every case is answered by a mock target and judged by a mock judge (canned verdict), so
the run measures agentv itself: streaming load, the pool, judging and result writing.
--fail makes the judge fail every case (score 0.2 and a miss), the worst case for what the
reports keep in memory.
"""
import argparse
import json
import os

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--n", type=int, default=100000)
ap.add_argument("--delay-ms", type=int, default=0)
ap.add_argument("--workers", type=int, default=1)
ap.add_argument("--fail", action="store_true")
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, "targets.yaml"), "w") as f:
    f.write("targets:\n  - name: mock\n    provider: mock\n    response: '{\"answer\":\"42\"}'\n")
    if a.delay_ms:
        f.write(f"    delay_ms: {a.delay_ms}\n")
    f.write(f"    workers: {a.workers}\n    judge_target: judge\n")
    verdict = ('{"score":0.2,"hits":["ok"],"misses":["does not answer with JSON"],"reasoning":"canned"}'
               if a.fail else '{"score":1,"hits":["ok"],"misses":[],"reasoning":"canned"}')
    f.write(f"  - name: judge\n    provider: mock\n    response: '{verdict}'\n")
with open(os.path.join(a.out, "eval.yaml"), "w") as f:
    f.write("description: JSONL scale suite\ndataset: scale\nexecution:\n  target: mock\n")
with open(os.path.join(a.out, "eval.jsonl"), "w") as f:
    for i in range(1, a.n + 1):
        f.write(json.dumps({
            "id": f"case-{i:06d}",
            "expected_outcome": "The assistant answers 42 as JSON.",
            "input_messages": [
                {"role": "system", "content": "Answer with a single JSON object."},
                {"role": "user", "content": f"Question {i}: what is six times seven?"},
            ],
            "expected_messages": [{"role": "assistant", "content": "{\"answer\":\"42\"}"}],
        }, separators=(",", ":")) + "\n")
print(a.out)
