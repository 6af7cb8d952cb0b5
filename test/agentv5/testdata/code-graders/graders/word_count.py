#!/usr/bin/env python3
"""script grader: full protocol. Scores the share of the expected words
(config words, else ["alpha", "beta"]) found in the output."""
import json
import sys

data = json.load(sys.stdin)
output = data.get("output") or ""
words = ["alpha", "beta"]
checks = [{"text": "mentions " + w, "pass": w in output, "reason": w + (" found" if w in output else " missing")} for w in words]
passed = sum(1 for c in checks if c["pass"])
print(json.dumps({
    "pass": passed == len(checks),
    "score": passed / len(checks),
    "reason": "%d/%d words" % (passed, len(checks)),
    "checks": checks,
}))
