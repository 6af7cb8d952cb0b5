#!/usr/bin/env python3
"""A deterministic stand-in for an LLM grader, so the quick start runs offline.

agentv sends it the grader prompt (default or custom). It reads what is expected and the
answer from the prompt's sections and scores word overlap, answering with the JSON verdict a
grader must return: AgentV 4.x's {score, assertions} for 4.x prompts ([[ ## answer ## ]]),
AgentV 2.5's {score, hits, misses, reasoning} for 2.5 prompts ([[ ## candidate_answer ## ]]).
"""
import json
import re
import sys

prompt = sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read()


def section(*names):
    for name in names:
        m = re.search(r"\[\[ ## " + name + r" ## \]\]\n(.*?)(?=\n\[\[ ## |\Z)", prompt, re.S)
        if m:
            return m.group(1).strip()
        m = re.search(name.upper().replace("_", " ") + r":\s*(.*?)(?=\n[A-Z ]+:|\Z)", prompt, re.S)
        if m:
            return m.group(1).strip()
    return ""


v4 = "[[ ## answer ## ]]" in prompt
expected = section("criteria", "expected_outcome")
reference = section("reference_answer")
candidate = section("answer", "candidate_answer")
words = lambda s: set(re.findall(r"[a-z0-9]+", s.lower())) - {"the", "a", "an", "is", "of", "with", "as"}
want = words(reference) or words(expected)
got = words(candidate)
hit = sorted(want & got)
miss = sorted(want - got)
score = round(len(hit) / len(want), 3) if want else 0.0
reasoning = f"{len(hit)} of {len(want)} expected words found in the answer."
print("Here is my verdict:")
if v4:
    print(json.dumps({
        "score": score,
        "assertions": [{"text": f"mentions {w}", "passed": True} for w in hit[:4]]
        + [{"text": f"does not mention {w}", "passed": False, "evidence": reasoning} for w in miss[:4]],
    }))
else:
    print(json.dumps({
        "score": score,
        "hits": [f"mentions {w}" for w in hit[:4]],
        "misses": [f"does not mention {w}" for w in miss[:4]],
        "reasoning": reasoning,
    }))
