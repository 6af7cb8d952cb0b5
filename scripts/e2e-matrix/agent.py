#!/usr/bin/env python3
"""A deterministic stand-in for an agent: answers a few known questions and logs each call.

Every call appends a line to calls.log beside this file, so a run answered from the response
cache shows that the agent was never started.
"""
import argparse
import json
import os

p = argparse.ArgumentParser()
p.add_argument("--prompt", required=True)
p.add_argument("--out", required=True)
a = p.parse_args()

ANSWERS = {
    "capital of france": "The capital of France is Paris.",
    "capital of italy": "The capital of Italy is Rome.",
    "six times seven": "Six times seven is 42.",
    "largest planet": "Jupiter is the largest planet.",
    "boiling point": "Water boils at 100 degrees Celsius at sea level.",
}
q = a.prompt.lower()
answer = next((v for k, v in ANSWERS.items() if k in q), "I am not sure.")

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.log"), "a") as f:
    f.write(a.prompt.splitlines()[-1][:60] + "\n")
with open(a.out, "w") as f:
    json.dump({"text": answer, "token_usage": {"input": len(a.prompt.split()), "output": len(answer.split())}}, f)
