#!/usr/bin/env python3
"""Reduces a promptfoo `eval -o out.json` file to the values we check.

usage: extract_expected.py OUT.json CONFIG_DIR > expected.json

One row per result (test x prompt x provider), ordered as promptfoo numbers
them. Per row: the test's description (null without one) and index,
promptfoo's column index (one column per prompt x provider), the prompt's
label, the provider's id and label, the output, the test's score and pass,
and per component result (in promptfoo's flattened order: an assert-set is
followed by its members) the assertion type, score, pass and weight. Absolute paths of the config folder are written as ".",
so the file does not depend on where the repository is checked out.
"""
import json
import sys


def scrub(value, root):
    if isinstance(value, str):
        return value.replace(root + "/", "./").replace(root, ".")
    return value


def component(result, root):
    assertion = result.get("assertion") or {}
    meta = result.get("metadata") or {}
    row = {}
    if "assertionSet" in meta and not assertion:
        aset = meta["assertionSet"]
        row["type"] = aset.get("type", "assert-set")
        row["members"] = aset.get("assertionCount")
        if "threshold" in aset:
            row["threshold"] = aset["threshold"]
        if "weight" in aset:
            row["weight"] = aset["weight"]
    else:
        row["type"] = assertion.get("type")
        value = assertion.get("value")
        if isinstance(value, str):
            row["value"] = scrub(value, root)
        if "weight" in assertion:
            row["weight"] = assertion["weight"]
        if "threshold" in assertion:
            row["threshold"] = assertion["threshold"]
    row["score"] = result.get("score")
    row["pass"] = result.get("pass")
    return row


def main():
    out_path, root = sys.argv[1], sys.argv[2].rstrip("/")
    with open(out_path, encoding="utf-8") as f:
        data = json.load(f)
    results = data["results"]["results"]
    results.sort(key=lambda r: (r.get("testIdx", 0), r.get("promptIdx", 0), r.get("provider", {}).get("id", ""), r.get("provider", {}).get("label") or ""))
    rows = []
    for r in results:
        test = r.get("testCase") or {}
        grading = r.get("gradingResult") or {}
        provider = r.get("provider") or {}
        row = {
            "test": test.get("description"),
            "test_index": r.get("testIdx"),
            "column": r.get("promptIdx"),
            "prompt": scrub((r.get("prompt") or {}).get("label"), root),
            "provider": scrub(provider.get("id"), root),
            "provider_label": provider.get("label") or "",
            "output": scrub((r.get("response") or {}).get("output"), root),
            "score": r.get("score"),
            "pass": r.get("success"),
            # promptfoo's ResultFailureReason: 0 none, 1 an assertion, 2 an error.
            "failure_reason": r.get("failureReason"),
            "assertions": [component(c, root) for c in grading.get("componentResults") or []],
        }
        if test.get("threshold") is not None:
            row["threshold"] = test["threshold"]
        rows.append(row)
    stats = data["results"].get("stats") or {}
    doc = {
        "promptfoo_version": data["results"].get("version") and (data.get("metadata") or {}).get("promptfooVersion"),
        "stats": {k: stats.get(k) for k in ("successes", "failures", "errors")},
        "results": rows,
    }
    json.dump(doc, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
