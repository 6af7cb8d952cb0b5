#!/usr/bin/env python3
"""Probe of the container's token and init check (scripts/container-e2e.sh, pass "secrets").

agent OUTPUT_FILE: reads the environment of itself and of every ancestor process up to PID 1,
leaves an orphan process behind and waits until it has ended, writes what it found to
probe-agent.json beside this script and answers with a summary.
judge: reads the judge payload on stdin, probes the same way (probe-judge.json) and scores 1
only when neither probe saw a token variable and the orphan was reaped by PID 1.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def token_var(name):
    return name in ("GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN") or (
        name.startswith("ACTIONS_") and name.endswith("_TOKEN"))


def environ(pid):
    """The names of pid's environment variables, or why they cannot be read."""
    try:
        with open("/proc/%s/environ" % pid, "rb") as f:
            data = f.read()
    except OSError as e:
        return type(e).__name__
    return [kv.split(b"=", 1)[0].decode("utf-8", "replace") for kv in data.split(b"\0") if kv]


def probe():
    seen = {"self": environ("self")}
    pid = os.getppid()
    while pid >= 1:
        seen[str(pid)] = environ(pid)
        if pid == 1:
            break
        with open("/proc/%d/stat" % pid) as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    visible = sorted({n for names in seen.values() if isinstance(names, list) for n in names if token_var(n)})
    with open("/proc/1/cmdline", "rb") as f:
        pid1 = f.read().split(b"\0")[0].decode("utf-8", "replace")
    return {"environ": seen, "visible": visible, "pid1": pid1}


def orphan():
    """Leaves a process whose parent has exited; 'reaped' once someone collected it."""
    pid = int(subprocess.run(["sh", "-c", "sleep 0.2 >/dev/null 2>&1 & echo $!"],
                             capture_output=True, text=True).stdout)
    for _ in range(100):  # up to 10 s for it to end and be collected
        try:
            with open("/proc/%d/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "reaped"
        time.sleep(0.1)
    return "zombie" if state == "Z" else "still running"


role = sys.argv[1]
found = probe()
if role == "agent":
    found["orphan"] = orphan()
    answer = "tokens visible: %s; pid1: %s; orphan: %s" % (
        ", ".join(found["visible"]) or "none", found["pid1"], found["orphan"])
    with open(sys.argv[2], "w") as f:
        json.dump({"text": answer}, f)
else:
    answer = json.load(sys.stdin).get("actual_output", "")
with open(os.path.join(HERE, "probe-%s.json" % role), "w") as f:
    json.dump(found, f, indent=1)
if role == "judge":
    ok = not found["visible"] and "tokens visible: none" in answer and "orphan: reaped" in answer
    print(json.dumps({"score": 1 if ok else 0,
                      "hits": ["no token visible", "orphan reaped"] if ok else [],
                      "misses": [] if ok else ["agent: " + answer + "; judge saw: " + (", ".join(found["visible"]) or "none")]}))
