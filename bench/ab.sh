#!/usr/bin/env bash
# Compares two agentv binaries on the suite-loading scenarios, running them alternately so a
# busy machine slows both alike, and prints medians of wall time, peak RSS and CPU (user +
# system) per case.
#
#   bench/ab.sh OLD_BIN NEW_BIN [runs]     # default 7 runs per binary and scenario
#
# Needs python3 and GNU time (/usr/bin/time). The YAML suites come from bench/gen (internal/suitegen),
# the JSONL suite from bench/jsonl.py.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1") new=$(realpath "$2") runs=${3:-7}
out=$PWD/bench/out
mkdir -p "$out"
[ -d "$out/suites/llm-5000" ] || go run ./bench/gen -out "$out/suites" -modes llm -sizes 5000,20000 >/dev/null
[ -f "$out/jsonl-100k/eval.jsonl" ] || python3 bench/jsonl.py --out "$out/jsonl-100k" --n 100000 >/dev/null
t=$(mktemp) rows=$(mktemp)
trap 'rm -f "$t" "$rows"' EXIT

scenario() {
  local name=$1 dir=$2 cases=$3; shift 3
  : >"$rows"
  for _ in $(seq "$runs"); do
    for which in old new; do
      local bin=$old
      [ "$which" = new ] && bin=$new
      (cd "$dir" && /usr/bin/time -o "$t" -f '%e %M %U %S' "$bin" "$@" >/dev/null 2>&1) || true
      echo "$which $(tail -1 "$t")" >>"$rows"
    done
  done
  python3 - "$name" "$cases" "$rows" <<'PY'
import statistics, sys
name, cases = sys.argv[1], int(sys.argv[2])
rows = [l.split() for l in open(sys.argv[3])]
for which in ("old", "new"):
    r = [x[1:] for x in rows if x[0] == which]
    wall = statistics.median(float(x[0]) for x in r)
    rss = statistics.median(int(x[1]) for x in r) / 1024
    cpu = statistics.median(float(x[2]) + float(x[3]) for x in r)
    print(f"{name:24s} {which}  wall {wall:6.2f}s  peak RSS {rss:6.1f} MiB  CPU {cpu:5.2f}s = {cpu / cases * 1e3:.3f} ms/case")
PY
}

echo "$runs runs per binary and scenario, alternating, $(nproc) cores"
scenario "llm judge, 5,000 YAML" "$out/suites/llm-5000" 5000 eval eval.yaml --out "$out/r.jsonl"
scenario "validate, 5,000 YAML" "$out/suites/llm-5000" 5000 validate eval.yaml --targets .agentv/targets.yaml
scenario "llm judge, 20,000 YAML" "$out/suites/llm-20000" 20000 eval eval.yaml --out "$out/r.jsonl"
scenario "JSONL, 100,000 cases" "$out/jsonl-100k" 100000 eval eval.jsonl --out "$out/r.jsonl"
