#!/usr/bin/env bash
# Times code graders: an AgentV 4.x suite of N tests, each scored by one Python code-grader,
# run by agentv with --grader-isolation fork and process and by AgentV 4.42.4, alternating so a
# busy machine slows all alike; prints the median wall time of R runs of each.
#
#   bench/graders.sh [N] [R]        # default 300 tests, 5 runs
#
# Needs python3, go, and AgentV 4.42.4 from npm (npm install --prefix /tmp/agentv442 agentv@4.42.4;
# AGENTV_442_CLI names another cli.js). Every target is a mock: nothing leaves the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300} runs=${2:-5}
cli442=${AGENTV_442_CLI:-/tmp/agentv442/node_modules/agentv/dist/cli.js}
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
nice go build -o "$work/agentv" ./cmd/agentv

# The suite: a mock target answering {"answer":"42"}, and a grader that scores the answer.
suite=$work/suite
mkdir -p "$suite/.agentv" "$suite/evals"
cat >"$suite/.agentv/targets.yaml" <<'YAML'
targets:
  - name: mock
    provider: mock
    response: '{"answer":"42"}'
YAML
cat >"$suite/evals/grader.py" <<'PY'
import json, sys
payload = json.load(sys.stdin)
ok = "42" in json.dumps(payload.get("output"))
print(json.dumps({"score": 1 if ok else 0, "assertions": [{"text": "answers 42", "passed": ok}]}))
PY
python3 - "$n" >"$suite/evals/bench.eval.yaml" <<'PY'
import sys
n = int(sys.argv[1])
print(f"name: graders-bench\ndescription: {n} tests, one Python code-grader each\nexecution:\n  target: mock\ntests:")
for i in range(1, n + 1):
    print(f"  - id: t{i:05d}\n    criteria: answers 42\n    input: 'Question {i}: what is six times seven?'\n"
          "    expected_output: '{\"answer\":\"42\"}'\n"
          "    assertions:\n      - type: code-grader\n        command: [python3, grader.py]")
PY

rows=$work/rows
: >"$rows"
time_it() { # name command...
  local s e
  s=$(date +%s.%N)
  (cd "$suite" && "${@:2}" >"$work/$1.log" 2>&1) || { echo "$1 failed:"; tail -5 "$work/$1.log"; exit 1; }
  e=$(date +%s.%N)
  echo "$1 $(python3 -c "print($e - $s)")" >>"$rows"
}
for _ in $(seq "$runs"); do
  time_it fork "$work/agentv" eval evals/bench.eval.yaml --workers 3 --grader-isolation fork --out "$work/fork.jsonl"
  time_it process "$work/agentv" eval evals/bench.eval.yaml --workers 3 --grader-isolation process --out "$work/process.jsonl"
  time_it agentv442 node "$cli442" eval evals/bench.eval.yaml --workers 3 --output "$work/run442"
done
# Every run must have scored every test 1: a fast run that errored would prove nothing.
python3 - "$n" "$work/fork.jsonl" "$work/process.jsonl" "$work/run442/index.jsonl" <<'PY'
import json, sys
n = int(sys.argv[1])
for path in sys.argv[2:]:
    scores = [r["score"] for r in map(json.loads, filter(str.strip, open(path))) if "eval_id" in r or "test_id" in r]
    if len(scores) != n or any(s != 1 for s in scores):
        sys.exit(f"{path}: {len(scores)} records, scores {sorted(set(scores))}; want {n} scoring 1")
PY
python3 - "$rows" "$n" "$runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {k: statistics.median(float(r[1]) for r in rows if r[0] == k) for k in ("fork", "process", "agentv442")}
print(f"{sys.argv[2]} tests, one Python code-grader each, --workers 3, median of {sys.argv[3]} runs")
for k, v in med.items():
    print(f"  {k:10s} {v:7.2f} s   {v / med['agentv442']:.2f}x AgentV 4.42.4")
PY
