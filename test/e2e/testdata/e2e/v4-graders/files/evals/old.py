import json, sys
d = json.load(sys.stdin)
ok = d.get("candidate_answer") == "The answer is 42." and d.get("expected_outcome") == "Answers 42" and d.get("question", "").find("What is the answer?") >= 0
print(json.dumps({"score": 1 if ok else 0.25, "hits": ["old names"] if ok else [], "misses": [] if ok else ["old names missing"]}))
