import json, sys
d = json.load(sys.stdin)
checks = [
  d.get("output") == "The answer is 42.",
  d.get("criteria") == "Answers 42",
  d.get("config", {}).get("threshold") == 3,
  isinstance(d.get("messages"), list) and d["messages"][-1]["content"] == "The answer is 42.",
  d.get("input")[0]["content"] == "What is the answer?",
  d.get("expected_output")[0]["content"] == "42",
  d.get("trace_summary", {}).get("llm_call_count") == 1,
  "token_usage" in d and "cost_usd" in d and "duration_ms" in d and "workspace_path" in d,
]
print(json.dumps({"assertions": [{"text": "check %d" % i, "passed": c} for i, c in enumerate(checks)]}))
