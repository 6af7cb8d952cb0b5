import json, re, sys
d = json.load(sys.stdin)
m = re.search(r"SCORE=([0-9.]+)", d.get("candidate_answer", ""))
s = float(m.group(1)) if m else 0.0
print(json.dumps({"score": s, "hits": [], "misses": [] if s >= 0.8 else ["answer got worse"]}))
