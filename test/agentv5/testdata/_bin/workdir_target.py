#!/usr/bin/env python3
"""Offline target that reports on the directory it runs in (the environment and extension suites).

Usage: workdir_target.py PROMPT_FILE OUTPUT_FILE

A directive line of the prompt picks the answer:

  CAT: <path>    the file's text (relative to the working directory, trailing
                 white space removed), or <missing> when there is none
  ENV: <name>    the variable's value, or <unset>
  CWD            the working directory's last path element

AgentV 5.x runs a cli target in the environment's workdir (or the extensions'
workspace), so the answers show what setup and the hooks left there.
"""
import os
import sys


def answer(prompt):
    for line in prompt.splitlines():
        line = line.strip()
        if line.startswith("CAT:"):
            path = line[len("CAT:"):].strip()
            try:
                with open(path, encoding="utf-8") as f:
                    return f.read().rstrip()
            except OSError:
                return "<missing>"
        if line.startswith("ENV:"):
            return os.environ.get(line[len("ENV:"):].strip(), "<unset>")
        if line == "CWD":
            return os.path.basename(os.getcwd())
    return prompt


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        prompt = f.read()
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(answer(prompt))


if __name__ == "__main__":
    main()
