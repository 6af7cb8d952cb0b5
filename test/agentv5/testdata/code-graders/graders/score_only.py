#!/usr/bin/env python3
"""script grader: a bare score, no pass field."""
import json
import sys

data = json.load(sys.stdin)
print(json.dumps({"score": 0.25 if "alpha" in (data.get("output") or "") else 0.0}))
