import json, sys
out = {"text": "final answer", "output": [
  {"role": "assistant", "content": "let me look", "tool_calls": [{"tool": "read", "input": {"path": "a.txt"}, "output": "hello", "id": "c1", "duration_ms": 12}]},
  {"role": "tool", "content": "hello"},
  {"role": "assistant", "content": "final answer"}],
  "token_usage": {"input": 10, "output": 5}, "cost_usd": 0.01, "duration_ms": 123}
open(sys.argv[1], "w").write(json.dumps(out))
