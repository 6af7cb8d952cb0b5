# A Python code judge: reads the evaluation context from stdin, prints its verdict.
import json
import platform
import sys

ctx = json.load(sys.stdin)
ok = "Paris" in (ctx.get("actual_output") or ctx.get("candidate_answer") or "")
print(json.dumps({"score": 1 if ok else 0, "misses": [] if ok else ["does not name Paris"],
                  "details": {"runtime": "python", "python": platform.python_version()}}))
