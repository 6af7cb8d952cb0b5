import json, sys
d = json.load(sys.stdin)
r = d["results"]
print(json.dumps({"score": r["l"]["score"] / 2, "assertions": [{"text": "halved", "passed": True}]}))
