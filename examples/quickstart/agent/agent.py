#!/usr/bin/env python3
"""A deterministic stand-in for an AI agent, so the quick start runs offline.

It answers a few known questions, reads attached files, and writes its answer as JSON
(text plus token usage) to the output file agentv gives it.
"""
import argparse
import json
import re

p = argparse.ArgumentParser()
p.add_argument("--prompt", required=True)
p.add_argument("--files", nargs="*", default=[])
p.add_argument("--out", required=True)
a = p.parse_args()

q = a.prompt.lower()
if "capital of france" in q:
    answer = "The capital of France is Paris."
elif "six times seven" in q or "6 * 7" in q:
    answer = '{"answer": 42}'
elif "order" in q and a.files:
    orders = [json.load(open(f)) for f in a.files if f.endswith(".json")]
    total = sum(i["qty"] * i["price"] for o in orders for i in o["items"])
    answer = f"The order total is {total:.2f} EUR."
elif "haiku" in q:
    answer = "Code review at dawn\nthe linter hums, tests pass green\nmerge before the rain"
else:
    answer = "I am not sure."

words = len(re.findall(r"\w+", a.prompt))
with open(a.out, "w") as f:
    json.dump({"text": answer, "token_usage": {"input": words, "output": len(answer.split())}}, f)
