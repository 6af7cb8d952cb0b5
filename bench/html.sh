#!/usr/bin/env bash
# Measures report.html on a generated 10,000-case run in headless Chromium: its size against
# results.jsonl, the time to the first drawn row and to interactive (the page's performance
# marks, from navigation), the first opened case and a search. Needs Chromium (chromium on PATH,
# or AGENTV_TEST_CHROMIUM). Usage: bench/html.sh [runs]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
for _ in $(seq "$runs"); do
  go test -v ./test/browser -run '^TestOpenLargeRun$' -count=1 | sed -n 's/^ *large_test.go:[0-9]*: //p'
done
