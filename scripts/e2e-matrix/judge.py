#!/usr/bin/env python3
"""A deterministic stand-in for an LLM judge, so the quick start runs offline.

agentv sends it the judge prompt (default or custom). It reads the expected outcome and
the candidate answer from the prompt's sections and scores word overlap, answering with
the JSON verdict every judge must return.
"""
import json
import re
import sys

prompt = sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read()


def section(name):
    m = re.search(r"\[\[ ## " + name + r" ## \]\]\n(.*?)(?=\n\[\[ ## |\Z)", prompt, re.S)
    if m:
        return m.group(1).strip()
    m = re.search(name.upper().replace("_", " ") + r":\s*(.*?)(?=\n[A-Z ]+:|\Z)", prompt, re.S)
    return m.group(1).strip() if m else ""


expected = section("expected_outcome")
reference = section("reference_answer")
candidate = section("candidate_answer")
words = lambda s: set(re.findall(r"[a-z0-9]+", s.lower())) - {"the", "a", "an", "is", "of", "with", "as"}
want = words(reference) or words(expected)
got = words(candidate)
hit = sorted(want & got)
miss = sorted(want - got)
score = len(hit) / len(want) if want else 0.0
print("Here is my verdict:")
print(json.dumps({
    "score": round(score, 3),
    "hits": [f"mentions {w}" for w in hit[:4]],
    "misses": [f"does not mention {w}" for w in miss[:4]],
    "reasoning": f"{len(hit)} of {len(want)} expected words found in the answer.",
}))
