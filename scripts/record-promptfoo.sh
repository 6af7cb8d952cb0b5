#!/bin/sh
# record-promptfoo.sh [--check] [NAME...] — re-records
# test/promptfoo/testdata/NAME/expected.json by running the reference promptfoo
# on each config against the loopback fake (test/promptfoo/testdata/fake_openai.py).
# Without names: every config that has a promptfooconfig.yaml directly under
# testdata/. With --check nothing is written: each fresh record is compared with
# the checked-in expected.json (numbers within 1e-9, see compare_expected.py)
# and any difference fails (the live differential run for CI).
#
# Reads (see scripts/install-promptfoo.sh, which prints them):
#   PROMPTFOO_NODE  a Node >= 22.22 binary
#   PROMPTFOO_CLI   promptfoo's dist/src/entrypoint.js
#   FAKE_PORT       optional, the fake's port (default: a free one)
#   RECORD_PROMPTFOO_KEEP  optional, non-empty keeps the work folder (raw
#                   promptfoo outputs, its logs and the fake's request log)
#
# No request may leave the machine: when user namespaces are available the
# whole run happens in a private network namespace that has only loopback;
# otherwise proxies point at a closed loopback port. Both matter: with
# PROMPTFOO_DISABLE_TELEMETRY set, promptfoo 0.123.1 still posts one
# "telemetry disabled" event to https://r.promptfoo.app/ per run (telemetry
# chunk, recordTelemetryDisabled -> sendEvent), and no variable stops that. Telemetry, update checks,
# sharing and remote generation are switched off, and promptfoo's config,
# cache and log folders live in a temporary directory.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
check=
if [ "${1:-}" = --check ]; then
	check=1
fi
data=$root/test/promptfoo/testdata

: "${PROMPTFOO_NODE:?set PROMPTFOO_NODE (scripts/install-promptfoo.sh prints it)}"
: "${PROMPTFOO_CLI:?set PROMPTFOO_CLI (scripts/install-promptfoo.sh prints it)}"

# Re-run inside a network namespace of our own (loopback only) when we can.
if [ "${RECORD_PROMPTFOO_ISOLATED:-}" = "" ] && command -v unshare >/dev/null 2>&1 &&
	unshare -rn true 2>/dev/null; then
	RECORD_PROMPTFOO_ISOLATED=1 exec unshare -rn sh "$0" "$@"
fi
if [ "${RECORD_PROMPTFOO_ISOLATED:-}" = 1 ]; then
	ip link set lo up 2>/dev/null || true # a fresh namespace starts with lo down
	isolation="private network namespace (loopback only)"
else
	echo "record-promptfoo: no user namespaces; relying on env switches and dead proxies" >&2
	isolation="environment switches and proxies to a closed loopback port"
fi

work=$(mktemp -d)
fake_pid=
cleanup() {
	if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi
	if [ -n "${RECORD_PROMPTFOO_KEEP:-}" ]; then
		echo "record-promptfoo: kept $work (promptfoo outputs, logs, fake.log)" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT INT TERM

python3 "$data/fake_openai.py" --port "${FAKE_PORT:-0}" --port-file "$work/port" \
	--log "$work/fake.log" >/dev/null &
fake_pid=$!
i=0
while [ ! -s "$work/port" ]; do
	i=$((i + 1))
	if [ $i -gt 50 ] || ! kill -0 "$fake_pid" 2>/dev/null; then
		echo "record-promptfoo: the fake did not start" >&2
		exit 1
	fi
	sleep 0.1
done
port=$(cat "$work/port")

# Keys of other vendors must not leak in from the caller's environment.
unset AZURE_OPENAI_API_KEY AZURE_OPENAI_API_HOST AZURE_API_HOST GEMINI_API_KEY PALM_API_KEY \
	GOOGLE_API_HOST PALM_API_HOST PROMPTFOO_API_KEY OPENAI_API_HOST OPENAI_API_BASE_URL 2>/dev/null || true
# Every vendor the subset names points at the fake, with a dummy key.
export OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=sk-fake-loopback
export ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-ant-fake-loopback
export AZURE_API_BASE_URL="http://127.0.0.1:$port" AZURE_API_KEY=fake-azure-loopback
export GOOGLE_API_BASE_URL="http://127.0.0.1:$port" GOOGLE_API_KEY=fake-google-loopback
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1
export PROMPTFOO_DISABLE_REMOTE_GENERATION=1 PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION=1
export PROMPTFOO_CONFIG_DIR="$work/config" PROMPTFOO_CACHE_PATH="$work/cache" PROMPTFOO_LOG_DIR="$work/logs"
export HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost
export http_proxy=$HTTP_PROXY https_proxy=$HTTPS_PROXY no_proxy=$NO_PROXY

if [ -n "$check" ]; then
	shift
fi
if [ $# -eq 0 ]; then
	set --
	for cfg in "$data"/*/promptfooconfig.yaml; do
		set -- "$@" "$(basename "$(dirname "$cfg")")"
	done
fi

version=$("$PROMPTFOO_NODE" "$PROMPTFOO_CLI" --version 2>/dev/null | tail -n 1)
failed=
for name in "$@"; do
	dir=$data/$name
	if [ ! -f "$dir/promptfooconfig.yaml" ]; then
		echo "record-promptfoo: $dir/promptfooconfig.yaml: no such config" >&2
		exit 2
	fi
	rc=0
	(cd "$dir" && "$PROMPTFOO_NODE" "$PROMPTFOO_CLI" eval -c promptfooconfig.yaml \
		-o "$work/$name.json" --no-cache --no-write --no-table --no-progress-bar \
		>"$work/$name.log" 2>&1) || rc=$?
	# promptfoo exits 100 when some test failed; that is part of the record.
	if [ $rc -ne 0 ] && [ $rc -ne 100 ]; then
		echo "record-promptfoo: $name: promptfoo exited $rc:" >&2
		cat "$work/$name.log" >&2
		exit 1
	fi
	if [ -n "$check" ]; then
		python3 "$data/extract_expected.py" "$work/$name.json" "$dir" >"$work/$name.expected.json"
		if python3 "$data/compare_expected.py" "$dir/expected.json" "$work/$name.expected.json" >"$work/$name.diff"; then
			echo "ok $name: promptfoo gives the recorded scores"
		else
			echo "FAIL $name: promptfoo no longer gives test/promptfoo/testdata/$name/expected.json:" >&2
			cat "$work/$name.diff" >&2
			failed="$failed $name"
		fi
		continue
	fi
	python3 "$data/extract_expected.py" "$work/$name.json" "$dir" >"$dir/expected.json"
	echo "recorded $name (promptfoo exit $rc)"
done

if [ -n "$check" ]; then
	if [ -n "$failed" ]; then
		echo "record-promptfoo --check: differences in:$failed" >&2
		exit 1
	fi
	exit 0
fi

{
	echo "recorded $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "promptfoo $version"
	echo "node $("$PROMPTFOO_NODE" --version)"
	echo "python $(python3 -c 'import platform; print(platform.python_version())')"
	echo "isolation: $isolation"
	echo "command: scripts/record-promptfoo.sh"
	echo "configs: $*"
} >"$data/recorded.txt"
