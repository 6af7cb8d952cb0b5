#!/usr/bin/env python3
"""Compares two expected.json files: exact, except numbers, which may differ
by 1e-9.

usage: compare_expected.py WANT.json GOT.json

promptfoo adds weighted scores in the order the assertions finish, and
model-graded assertions finish in any order, so a test's mean can differ in
its last bits between two runs (0.7000000000000001 / 0.6999999999999998).
Prints one line per difference, with its place, and exits 1 if any.
"""
import json
import sys

TOLERANCE = 1e-9


def walk(want, got, where, out):
    if isinstance(want, bool) or isinstance(got, bool):
        if want is not got:
            out.append("%s: want %r, got %r" % (where, want, got))
    elif isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if abs(want - got) > TOLERANCE:
            out.append("%s: want %r, got %r" % (where, want, got))
    elif isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got)):
            if key not in got:
                out.append("%s.%s: missing" % (where, key))
            elif key not in want:
                out.append("%s.%s: unexpected %r" % (where, key, got[key]))
            else:
                walk(want[key], got[key], "%s.%s" % (where, key), out)
    elif isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            out.append("%s: want %d items, got %d" % (where, len(want), len(got)))
        for i, (w, g) in enumerate(zip(want, got)):
            walk(w, g, "%s[%d]" % (where, i), out)
    elif want != got:
        out.append("%s: want %r, got %r" % (where, want, got))


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        want = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        got = json.load(f)
    out = []
    walk(want, got, "$", out)
    for line in out:
        print(line)
    sys.exit(1 if out else 0)


if __name__ == "__main__":
    main()
