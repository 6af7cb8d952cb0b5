#!/usr/bin/env python3
"""exec: provider that fails for prompts mentioning "fail": it writes to
stderr and exits 3. Other prompts are echoed."""
import sys

prompt = sys.argv[-3]
if "fail" in prompt:
    sys.stderr.write("refusing: %s\n" % prompt)
    sys.exit(3)
sys.stdout.write(prompt)
