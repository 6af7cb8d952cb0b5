#!/usr/bin/env bash
# Benchmarks agentv end to end on generated suites and prints wall time and peak RSS.
#
#   bench/run.sh [runs]        # default 5 runs per scenario; medians are reported
#
# Needs python3 and GNU time (/usr/bin/time). Suites come from bench/gen (AgentV-format YAML,
# internal/suitegen) and from bench/jsonl.py (JSONL scale suite).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
out=bench/out
mkdir -p "$out"
go build -o "$out/agentv" ./cmd/agentv
bin="$PWD/$out/agentv"
root=$PWD
tfile=$(mktemp)

go run ./bench/gen -out "$out/suites" -modes fa,llm,code_py,none,v4 -sizes 1000,5000,20000 >/dev/null
python3 bench/jsonl.py --out "$out/jsonl-100k" --n 100000 >/dev/null
python3 bench/jsonl.py --out "$out/delay-1000" --n 1000 --delay-ms 50 --workers 64 >/dev/null
python3 bench/jsonl.py --out "$out/jsonl-100k-fail" --n 100000 --fail >/dev/null

# measure NAME DIR ARGS...: runs agentv `runs` times, prints median wall seconds and peak RSS
# (and cases per second when $cases is set).
measure() {
  local name=$1 dir=$2; shift 2
  local walls=() rss=()
  for _ in $(seq "$runs"); do
    local t
    local extra=()
    [ "$1" = eval ] && extra=(--out "$root/$out/r.jsonl")
    (cd "$dir" && /usr/bin/time -o "$tfile" -f '%e %M' "$bin" "$@" "${extra[@]}" >/dev/null 2>&1) || true
    t=$(tail -1 "$tfile")
    walls+=("${t% *}"); rss+=("${t#* }")
  done
  python3 - "$name" "${walls[*]}" "${rss[*]}" "${cases:-0}" <<'PY'
import statistics, sys
name, walls, rss = sys.argv[1], [float(x) for x in sys.argv[2].split()], [int(x) for x in sys.argv[3].split()]
cases, med = int(sys.argv[4]), statistics.median(walls)
rate = f"  {cases / med:8,.0f} cases/s" if cases and med > 0 else ""
print(f"{name:36s} wall median {med:7.3f}s (min {min(walls):.3f})  peak RSS median {statistics.median(rss)/1024:7.1f} MiB{rate}")
PY
}

echo "agentv benchmarks, $runs runs each, $(nproc) cores"
cases=20000 measure "field_accuracy, 20000 cases (YAML)" "$out/suites/fa-20000" eval eval.yaml
cases=5000 measure "field_accuracy, 5000 cases (YAML)" "$out/suites/fa-5000" eval eval.yaml
cases=20000 measure "llm judge, 20000 cases (YAML)" "$out/suites/llm-20000" eval eval.yaml
cases=5000 measure "llm judge, 5000 cases (YAML)" "$out/suites/llm-5000" eval eval.yaml
cases=5000 measure "default judge, 5000 cases" "$out/suites/none-5000" eval eval.yaml
cases=5000 measure "AgentV 4.x, 5000 tests (YAML)" "$out/suites/v4-5000" eval eval.yaml
measure "validate 5000-case YAML" "$out/suites/llm-5000" validate eval.yaml --targets .agentv/targets.yaml
measure "python code judge, 1000 cases" "$out/suites/code_py-1000" eval eval.yaml --workers 2
cases=100000 measure "JSONL 100,000 cases" "$out/jsonl-100k" eval eval.jsonl
cases=100000 measure "JSONL 100,000 cases, all failing" "$out/jsonl-100k-fail" eval eval.jsonl --max-failures 100000
cases=1000 measure "1000 x 50ms mock, 64 workers" "$out/delay-1000" eval eval.jsonl
echo "ideal for the delay scenario: 1000*0.050/64 = 0.781s"
rm -f "$tfile"
