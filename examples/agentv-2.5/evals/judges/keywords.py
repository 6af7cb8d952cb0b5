#!/usr/bin/env python3
"""Code judge: reads the judge payload (JSON on stdin) and checks required keywords.

The keywords come from the evaluator's config in the eval file (`required: [...]`).
"""
import json
import sys

payload = json.load(sys.stdin)
answer = payload["actual_output"].lower()
required = (payload.get("config") or {}).get("required", [])
hits = [k for k in required if k.lower() in answer]
misses = [k for k in required if k.lower() not in answer]
print(json.dumps({
    "score": len(hits) / len(required) if required else 1.0,
    "hits": [f"contains '{k}'" for k in hits],
    "misses": [f"missing '{k}'" for k in misses],
    "reasoning": f"{len(hits)}/{len(required)} required keywords present",
}))
