#!/usr/bin/env python3
"""Summarizes `go test -json` on stdin the way plain `go test` prints, then lists every skipped
test with its reason (the t.Skip message), so that a CI log says what did not run and why.

    go test -json ./... | python3 scripts/test-summary.py

Prints one line per package (ok / FAIL / no test files), the output of each failing test, any
build errors, then the skipped tests and a closing count line ("tests: N passed, N failed, N skipped"). The exit status is go test's, not this
script's: run it under `set -o pipefail`.
"""
import json
import sys

output = {}  # (package, test) -> output lines
skipped = []  # (package, test, reason)
counts = {"pass": 0, "fail": 0, "skip": 0}  # tests and subtests


def reason(lines):
    """The t.Skip message: the test's output without the === / --- framing lines."""
    kept = []
    for line in lines:
        s = line.strip()
        if not s or s.startswith(("=== ", "--- ")):
            continue
        # "file_test.go:12: message" -> "message (file_test.go:12)"
        where, sep, msg = s.partition(": ")
        kept.append(f"{msg} ({where})" if sep and where.count(":") == 1 and where.endswith(tuple("0123456789")) else s)
    return "; ".join(kept) or "no reason given"


for raw in sys.stdin:
    try:
        ev = json.loads(raw)
    except ValueError:
        sys.stdout.write(raw)  # not an event: pass it through
        continue
    action, pkg, test = ev.get("Action"), ev.get("Package", ""), ev.get("Test")
    if test and action in counts:
        counts[action] += 1
    if action == "build-output":
        sys.stdout.write(ev.get("Output", ""))
    elif action == "output":
        output.setdefault((pkg, test), []).append(ev.get("Output", ""))
    elif test and action == "skip":
        skipped.append((pkg, test, reason(output.pop((pkg, test), []))))
    elif test and action == "fail":
        sys.stdout.write("".join(output.pop((pkg, test), [])))
    elif test and action == "pass":
        output.pop((pkg, test), None)
    elif not test and action in ("pass", "fail", "skip"):
        lines = output.pop((pkg, None), [])
        if action == "fail":
            # Package-level output holds the FAIL line and anything printed outside tests.
            sys.stdout.write("".join(lines) or f"FAIL\t{pkg}\n")
        elif action == "skip":
            print(f"?   \t{pkg}\t[no test files]")
        else:
            print(f"ok  \t{pkg}\t{ev.get('Elapsed', 0):.3f}s")
    sys.stdout.flush()

if skipped:
    print(f"\nSkipped tests ({len(skipped)}):")
    for pkg, test, why in skipped:
        print(f"  {pkg} {test}: {why}")
else:
    print("\nNo test was skipped.")
# The closing line CI reads: tests and subtests, as go test -json counts them.
print(f"\ntests: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
