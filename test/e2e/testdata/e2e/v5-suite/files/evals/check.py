import json, sys

payload = json.load(sys.stdin)
print(json.dumps({"score": 0.5, "assertions": [
    {"text": "mentions 42", "passed": "42" in str(payload)},
    {"text": "is a haiku", "passed": False},
]}))
