"""Workspace hook: appends its argument to log.txt in the workspace the hook context names."""
import json
import os
import sys

ctx = json.load(sys.stdin)
with open(os.path.join(ctx["workspace_path"], "log.txt"), "a", encoding="utf-8") as f:
    f.write(sys.argv[1] + "\n")
