#!/usr/bin/env python3
"""Turn one AgentV 5 run directory into a suite's expected.json.

Usage: extract_expected.py RUN_DIR SUITE_NAME AGENTV_VERSION > expected.json

Reads RUN_DIR/.internal/index.jsonl (one row per test x prompt x target) and
keeps what the reference is for: per row the test id, target, prompt id (when
the suite has a prompts matrix), score, AgentV's execution_status, whether
the test passed, the repeat samples and their aggregation, and per assertion its name, type, score,
pass and weight (assert-set children nested). Timings, paths and ids that
change from run to run are left out, and rows are sorted, so re-recording an
unchanged suite gives the same file.
"""
import json
import os
import re
import sys

# AgentV 5 names a prompt-matrix row's case "<test>__prompt_<id>"; the result
# row keeps only the test id, so the prompt id is read back from the temp
# file names in the recorded command line.
PROMPT_IN_COMMAND = re.compile(r"agentv-[^/'\s]*?__prompt_([A-Za-z0-9_.-]+?)-\d{10,}-")


def assertion(entry):
    out = {
        "name": entry.get("name"),
        "type": entry.get("type"),
        "score": entry.get("score"),
        "pass": entry.get("pass"),
        "weight": entry.get("weight"),
    }
    children = entry.get("scores")
    if children:
        out["children"] = [assertion(c) for c in children]
    return out


def prompt_id(row):
    command = ((row.get("target_execution") or {}).get("command") or {}).get("command_line") or ""
    match = PROMPT_IN_COMMAND.search(command)
    return match.group(1) if match else None


def sample(entry):
    return {
        "score": entry.get("score"),
        "status": entry.get("status"),
        "execution_status": entry.get("execution_status"),
    }


def case(row):
    out = {
        "id": row.get("test_id"),
        "target": row.get("target"),
    }
    prompt = prompt_id(row)
    if prompt is not None:
        out["prompt"] = prompt
    out["score"] = row.get("score")
    out["execution_status"] = row.get("execution_status")
    out["pass"] = row.get("execution_status") == "ok"
    samples = row.get("samples") or []
    if len(samples) > 1:
        out["samples"] = [sample(s) for s in samples]
    if row.get("aggregation"):
        out["aggregation"] = row["aggregation"]
    if row.get("error"):
        out["error"] = True
    out["assertions"] = [assertion(s) for s in row.get("scores") or []]
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: extract_expected.py RUN_DIR SUITE_NAME AGENTV_VERSION")
    run_dir, suite, version = sys.argv[1:]
    index = os.path.join(run_dir, ".internal", "index.jsonl")
    rows = []
    with open(index, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as err:
                sys.exit("%s:%d: not JSON: %s" % (index, n, err))
    cases = sorted((case(r) for r in rows), key=lambda c: (c["id"] or "", c["target"] or "", c.get("prompt") or ""))
    json.dump({"suite": suite, "agentv_version": version, "tests": cases}, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
