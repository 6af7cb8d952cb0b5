#!/usr/bin/env bash
# Times graders against AgentV 4.42.4: an AgentV 4.x suite of N tests on a mock target, each
# graded once (bench/graders_suite.py), run alternately by agentv and by AgentV 4.42.4 with
# --workers 3, so a busy machine slows all alike. Prints the medians of R runs: wall time, the
# largest process's peak RSS (GNU time's %M) and the whole process tree's peak RSS (the runner
# and the graders it spawned, sampled by bench/treepeak.py), each against 4.42.4.
#
#   bench/graders.sh [-m python|node|mock] [-t TRIALS] [-b] [-p NAME,...] [N] [R]
#
#   -m python  one Python code-grader a test: agentv with --grader-isolation fork and process
#   -m node    one Node code-grader a test, written with @agentv/sdk's defineCodeGrader as
#              AgentV 4.42.4 users write it and run with the user's @agentv/sdk 4.42.4
#              installed in the suite's node_modules: agentv (its default isolation) and
#              --grader-isolation process; -b adds agentv on the SDK it bundles (the same
#              suite without node_modules, which 4.42.4 cannot run)
#   -m mock    one llm-grader a test, judged by a mock judge target (grader_target)
#   -t TRIALS  execution.trials {count: TRIALS, strategy: mean}: every trial runs, in both
#   -p NAMES   only these programs (names as in the table; agentv442 is always run): for runs
#              too long to time every way on a loaded machine
#   N, R       tests (default 300, 1000 for mock) and runs of each program (default 5)
#
# Before printing the table it checks that every program gave every test the same score (and,
# for agentv, ran TRIALS trials): a fast run that errored would prove nothing.
#
# Needs python3, go, GNU time, and AgentV 4.42.4 from npm (npm install --prefix /tmp/agentv442
# agentv@4.42.4; AGENTV_442_CLI names another cli.js). Node mode needs the real @agentv/sdk
# 4.42.4, which is not on the npm registry: AGENTV_SDK442_DIR (default /tmp/agentv-sdk442) must
# hold node_modules/@agentv/sdk, as for .ci/run. Every target is a mock: nothing leaves the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=python trials=1 bundled= only=
while getopts m:t:bp: opt; do
  case $opt in
    m) mode=$OPTARG ;;
    t) trials=$OPTARG ;;
    b) bundled=1 ;;
    p) only=,$OPTARG, ;;
    *) sed -n 2,28p "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
case $mode in python | node | mock) ;; *) echo "mode $mode: want python, node or mock" >&2; exit 2 ;; esac
default_n=300
[ "$mode" = mock ] && default_n=1000
n=${1:-$default_n} runs=${2:-5}
cli442=${AGENTV_442_CLI:-/tmp/agentv442/node_modules/agentv/dist/cli.js}
sdk442=${AGENTV_SDK442_DIR:-/tmp/agentv-sdk442}
bench=$PWD/bench
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
[ -f "$cli442" ] || { echo "no AgentV 4.42.4 at $cli442 (npm install --prefix /tmp/agentv442 agentv@4.42.4)" >&2; exit 2; }
nice go build -o "$work/bin/agentv" ./cmd/agentv

suite=$work/suite
python3 "$bench/graders_suite.py" "$suite" "$mode" "$n" "$trials"
if [ "$mode" = node ]; then
  [ -f "$sdk442/node_modules/@agentv/sdk/package.json" ] ||
    { echo "node mode needs @agentv/sdk 4.42.4 in $sdk442/node_modules (AGENTV_SDK442_DIR)" >&2; exit 2; }
  if [ -n "$bundled" ]; then
    cp -r "$suite" "$work/suite-bundled" # before node_modules: agentv's own SDK answers the import
  fi
  ln -s "$sdk442/node_modules" "$suite/node_modules"
fi

# The programs: name, suite folder, command (the results path is added per program below).
names=() dirs=() cmds=()
program() {
  [ -z "$only" ] || [ "$1" = agentv442 ] || [[ $only == *",$1,"* ]] || return 0
  names+=("$1"); dirs+=("$2"); cmds+=("$3")
}
av="$work/bin/agentv eval evals/bench.eval.yaml --workers 3"
case $mode in
  python)
    program fork "$suite" "$av --grader-isolation fork"
    program process "$suite" "$av --grader-isolation process" ;;
  node)
    program agentv "$suite" "$av"
    program process "$suite" "$av --grader-isolation process"
    [ -z "$bundled" ] || program bundled-sdk "$work/suite-bundled" "$av" ;;
  mock)
    program agentv "$suite" "$av" ;;
esac
program agentv442 "$suite" "node $cli442 eval evals/bench.eval.yaml --workers 3"

run() { # index: runs program i once, measured, into $work/NAME (results) and $work/rows
  local name=${names[$1]} out
  rm -rf "${work:?}/$name" "$work/$name.jsonl" # results of the previous run
  if [ "$name" = agentv442 ]; then out="--output $work/$name"; else out="--out $work/$name.jsonl"; fi
  # shellcheck disable=SC2086 # the command is a word list on purpose
  (cd "${dirs[$1]}" && python3 "$bench/treepeak.py" "$work/rows.$name" -- ${cmds[$1]} $out >"$work/$name.log" 2>&1) ||
    { echo "$name failed:"; tail -5 "$work/$name.log"; exit 1; }
}

load_before=$(uptime)
for _ in $(seq "$runs"); do
  for i in "${!names[@]}"; do run "$i"; done
done
load_after=$(uptime)

python3 - "$work" "$n" "$trials" "${names[@]}" <<'PY'
import json, sys
work, n, trials, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
want = None
for name in names:
    path = f"{work}/{name}/index.jsonl" if name == "agentv442" else f"{work}/{name}.jsonl"
    scores = {}
    for line in open(path):
        r = json.loads(line)
        tid = r.get("test_id") or r.get("eval_id")
        if tid is None:
            continue
        if name != "agentv442" and trials > 1 and len(r.get("trials") or []) != trials:
            sys.exit(f"{name}: {tid} ran {len(r.get('trials') or [])} trials, want {trials}")
        scores[tid] = r["score"]
    if len(scores) != n:
        sys.exit(f"{name}: {len(scores)} tests scored, want {n}")
    if want is None:
        want = scores
    elif scores != want:
        diff = sorted(t for t in scores if scores[t] != want.get(t))[:5]
        sys.exit(f"{name} scores differ from {names[0]}'s: {', '.join(f'{t} {scores[t]} vs {want.get(t)}' for t in diff)}")
print(f"scores: all {len(names)} programs gave the same score to each of the {n} tests "
      f"(mean {sum(want.values()) / n:.3f})")
PY

python3 - "$work" "$mode" "$n" "$trials" "$runs" "$load_before" "$load_after" "${names[@]}" <<'PY'
import statistics, sys
work, mode, n, trials, runs, before, after = sys.argv[1:8]
names = sys.argv[8:]
med = {}
for name in names:
    rows = [list(map(float, l.split())) for l in open(f"{work}/rows.{name}")]
    med[name] = [statistics.median(r[k] for r in rows) for k in range(3)]
base = med["agentv442"]
what = {"python": "one Python code-grader", "node": "one Node code-grader (defineCodeGrader)",
        "mock": "one llm-grader on a mock judge"}[mode]
t = f" x {trials} trials" if int(trials) > 1 else ""
print(f"{n} tests{t}, {what} each, --workers 3, medians of {runs} runs, programs alternating")
print(f"load before: {before.strip()}")
print(f"load after:  {after.strip()}")
print(f"| program | wall | x 4.42.4 | peak RSS, largest process | peak RSS, process tree | x 4.42.4 (tree) |")
print(f"|---|---|---|---|---|---|")
for name in names:
    w, m, tree = med[name]
    print(f"| {name} | {w:.2f} s | {w / base[0]:.3f} | {m / 1024:.1f} MiB | {tree / 1024:.1f} MiB | {tree / base[2]:.2f} |")
PY
