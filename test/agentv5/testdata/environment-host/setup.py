#!/usr/bin/env python3
"""The environment's setup: runs once, in the eval file's folder, before any test."""
import json
import os
import sys

workdir = os.environ["AGENTV_ENVIRONMENT_WORKDIR"]
payload = json.load(sys.stdin)
env = payload.get("environment", {})
with open(os.path.join(workdir, "greeting.txt"), "w", encoding="utf-8") as f:
    f.write(os.environ.get("GREETING", "<unset>") + "|" + " ".join(sys.argv[1:]))
with open(os.path.join(workdir, "stdin.txt"), "w", encoding="utf-8") as f:
    same = "same" if env.get("workdir") == workdir else "different"
    f.write(f"{env.get('type')} workdir={same} keys={','.join(sorted(payload))}")
with open(os.path.join(workdir, "cwd.txt"), "w", encoding="utf-8") as f:
    f.write(os.path.basename(os.getcwd()))
count = os.path.join(workdir, "count.txt")
n = 0
if os.path.exists(count):
    with open(count, encoding="utf-8") as f:
        n = int(f.read() or 0)
with open(count, "w", encoding="utf-8") as f:
    f.write(str(n + 1))
