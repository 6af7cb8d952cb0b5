#!/usr/bin/env python3
"""Deterministic LLM judge for the AgentV 5 reference suites (a cli target).

Usage: judge.py PROMPT_FILE OUTPUT_FILE

It never reads the grading prompt's wording, only two kinds of markers, so any
program's judge prompt gives the same verdict as long as it contains the
rubric text and the candidate answer:

  JUDGE[key=0.7]   in the candidate answer: the score for rubrics about key
  key=NAME         in the rubric text: which key this rubric asks about

The first rubric key found picks the answer's JUDGE[key=...] score; without a
rubric key the first JUDGE[...] score counts; with no marker at all the
score is 0. pass is score >= 0.5. The reply is promptfoo's grading shape
({"pass", "score", "reason"}).
"""
import json
import re
import sys

MARK = re.compile(r"JUDGE\[([A-Za-z0-9_-]+)=([0-9]*\.?[0-9]+)\]")
KEY = re.compile(r"(?<![A-Za-z0-9_\[])key=([A-Za-z0-9_-]+)")


def grade(prompt):
    scores = {}
    order = []
    for name, value in MARK.findall(prompt):
        if name not in scores:
            scores[name] = min(1.0, float(value))
            order.append(name)
    for name in KEY.findall(prompt):
        if name in scores:
            return scores[name], "rubric key %s scored %s" % (name, scores[name])
        return 0.0, "rubric key %s has no score in the answer" % name
    if order:
        return scores[order[0]], "first score marker %s" % order[0]
    return 0.0, "no score marker in the answer"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: judge.py PROMPT_FILE OUTPUT_FILE")
    with open(sys.argv[1], encoding="utf-8") as f:
        prompt = f.read()
    score, reason = grade(prompt)
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump({"pass": score >= 0.5, "score": score, "reason": reason}, f)


if __name__ == "__main__":
    main()
