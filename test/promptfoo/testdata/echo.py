#!/usr/bin/env python3
"""exec: provider that answers with the prompt itself (promptfoo passes the
prompt, options JSON and context JSON as the last three arguments)."""
import sys

sys.stdout.write(sys.argv[-3])
