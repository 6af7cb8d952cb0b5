#!/usr/bin/env bash
# Re-records test/agentv5/testdata/*/expected.json: the per-test scores and verdicts AgentV 5
# gives the 5.x suites there, the reference the 5.x front-end is tested against.
#
#   AGENTV5_CLI="bun /path/to/agentv/apps/cli/src/cli.ts" scripts/record-agentv5.sh [SUITE...]
#
# AGENTV5_CLI is the command that runs an already-built AgentV 5 CLI (it is word-split); this
# script builds nothing and downloads nothing. With no SUITE every suite folder is recorded.
# Each suite runs from a copy in a temporary directory (AgentV writes .agentv/cache.json beside
# the eval), one case at a time, without the response cache, with update checks off and
# AGENTV_HOME in the temporary directory. A loopback fake (_bin/fake_server.py) serves the
# webhook and embeddings suites at $AGENTV5_FAKE_URL; $AGENTV5_BIN is the absolute path of the
# copied _bin (the helper scripts), which targets files may name. AgentV exits 1 when a test
# fails, which most suites do on purpose, so only a missing results file stops the recording.
set -euo pipefail
: "${AGENTV5_CLI:?set AGENTV5_CLI to the command that runs an AgentV 5 CLI}"
read -r -a cli <<<"$AGENTV5_CLI"

root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/test/agentv5/testdata
version=$("${cli[@]}" --version 2>/dev/null | tail -n 1)
case $version in
5.*) ;;
*) echo "record-agentv5: $AGENTV5_CLI --version says '$version', not an AgentV 5" >&2; exit 1 ;;
esac

work=$(mktemp -d)
server=
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

python3 "$data/_bin/fake_server.py" "$work/port" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "record-agentv5: fake server did not start" >&2; exit 1; }
export AGENTV5_FAKE_URL="http://127.0.0.1:$(cat "$work/port")"
export AGENTV_HOME=$work/home AGENTV_NO_UPDATE_CHECK=1 CI=true

if [ $# -gt 0 ]; then
	suites=("$@")
else
	suites=()
	for dir in "$data"/*/; do
		name=$(basename "$dir")
		case $name in _*) continue ;; esac
		suites+=("$name")
	done
fi

cp -R "$data/_bin" "$work/_bin"
export AGENTV5_BIN=$work/_bin
for name in "${suites[@]}"; do
	src=$data/$name
	case $name in _* | */* | .*) echo "record-agentv5: '$name' is not a suite folder name" >&2; exit 1 ;; esac
	[ -d "$src" ] || { echo "record-agentv5: no suite folder $src" >&2; exit 1; }
	evals=("$src"/*.eval.yaml)
	[ -e "${evals[0]}" ] || { echo "record-agentv5: $src has no *.eval.yaml" >&2; exit 1; }
	[ ${#evals[@]} -eq 1 ] || { echo "record-agentv5: $src has more than one *.eval.yaml" >&2; exit 1; }
	cp -R "$src" "$work/$name"
	rm -f "$work/$name/expected.json"
	export AGENTV5_TARGET_STATE=$work/state-$name
	out=$work/out-$name
	echo "record-agentv5: $name" >&2
	(cd "$work/$name" && "${cli[@]}" eval "$(basename "${evals[0]}")" --workers 1 --no-cache -o "$out") \
		>"$work/$name.log" 2>&1 || true
	if [ ! -s "$out/.internal/index.jsonl" ]; then
		cat "$work/$name.log" >&2
		echo "record-agentv5: $name wrote no results" >&2
		exit 1
	fi
	python3 "$data/_bin/extract_expected.py" "$out" "$name" "$version" >"$work/$name.expected.json"
	mv "$work/$name.expected.json" "$src/expected.json"
done
