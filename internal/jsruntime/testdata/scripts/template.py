# A prompt template in Python needs no SDK: the payload is JSON on stdin (snake_case keys).
import json
import sys

ctx = json.load(sys.stdin)
risk = ctx["expected_output"][0]["content"]["riskLevel"]
print(f"Question: {ctx['question']}\nAnswer: {ctx['actual_output']}\nExpected risk: {risk}")
