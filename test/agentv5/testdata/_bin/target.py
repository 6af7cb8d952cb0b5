#!/usr/bin/env python3
"""Deterministic offline target for the AgentV 5 reference suites.

Usage: target.py PROMPT_FILE OUTPUT_FILE [upper|lower]

The reply is chosen by a directive line in the prompt, so each suite states
its answers in its own YAML and both AgentV 5 and our binary see the same one:

  REPLY: <text>        reply with <text>; a literal \\n becomes a newline
  REPLY_JSON: <json>   write <json> as the output file as it is (5.x's cli
                       output format: {"output": [...messages...]}), used for
                       tool calls
  FAIL: <message>      print <message> to stderr and exit 2 (a target error)
  REPLY_SEQ: a|b|c     reply a, then b, then c on later calls with the same
                       prompt (repeats); the call count lives in
                       $AGENTV5_TARGET_STATE, which the caller must set to a
                       fresh directory per run

Without a directive the prompt is echoed back. A third argument upper or
lower changes the case of a text reply, so one script can play several
targets of a matrix.
"""
import hashlib
import os
import sys


def directive(prompt, name):
    for line in prompt.splitlines():
        stripped = line.strip()
        if stripped.startswith(name + ":"):
            return stripped[len(name) + 1:].strip()
    return None


def next_in_sequence(prompt, choices):
    state = os.environ.get("AGENTV5_TARGET_STATE")
    if not state:
        sys.exit("target.py: REPLY_SEQ needs AGENTV5_TARGET_STATE set to a fresh directory")
    os.makedirs(state, exist_ok=True)
    path = os.path.join(state, hashlib.sha256(prompt.encode()).hexdigest()[:16])
    count = 0
    if os.path.exists(path):
        with open(path) as f:
            count = int(f.read().strip() or "0")
    with open(path, "w") as f:
        f.write(str(count + 1))
    return choices[count % len(choices)]


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] not in ("upper", "lower")):
        sys.exit("usage: target.py PROMPT_FILE OUTPUT_FILE [upper|lower]")
    with open(sys.argv[1], encoding="utf-8") as f:
        prompt = f.read()
    failure = directive(prompt, "FAIL")
    if failure is not None:
        sys.stderr.write(failure + "\n")
        sys.exit(2)
    raw = directive(prompt, "REPLY_JSON")
    if raw is None:
        seq = directive(prompt, "REPLY_SEQ")
        if seq is not None:
            text = next_in_sequence(prompt, seq.split("|"))
        else:
            text = directive(prompt, "REPLY")
            if text is None:
                text = prompt
        raw = text.replace("\\n", "\n")
        if len(sys.argv) == 4:
            raw = raw.upper() if sys.argv[3] == "upper" else raw.lower()
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(raw)


if __name__ == "__main__":
    main()
