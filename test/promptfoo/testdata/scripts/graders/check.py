def get_assert(output, context):
    """Default function: True when the output mentions the expected word."""
    return context["vars"].get("expect", "") in output


def ratio(output, context):
    """A number: share of vowels among letters."""
    letters = [c for c in output.lower() if c.isalpha()]
    if not letters:
        return 0
    return sum(1 for c in letters if c in "aeiou") / len(letters)


def verdict(output, context):
    """A GradingResult with snake_case keys."""
    return {"pass_": "ok" in output, "score": 0.7 if "ok" in output else 0.2, "reason": "looked for ok"}
