#!/usr/bin/env python3
"""Code grader: reads the grader payload (JSON on stdin) and checks required keywords.

The keywords come from the grader's config in the eval file (`keywords: [...]`). It answers
with AgentV 4.x's result: a score and one assertion per keyword.
"""
import json
import sys

payload = json.load(sys.stdin)
answer = (payload.get("output") or "").lower()
required = (payload.get("config") or {}).get("keywords", [])
assertions = [
    {"text": f"contains '{k}'" if k.lower() in answer else f"missing '{k}'", "passed": k.lower() in answer}
    for k in required
]
passed = sum(a["passed"] for a in assertions)
print(json.dumps({
    "score": passed / len(required) if required else 1.0,
    "assertions": assertions,
}))
