#!/usr/bin/env python3
"""exec: provider. promptfoo passes the prompt, the provider options (JSON)
and the call context (JSON) as the last three arguments; stdout is the
output. This one answers in upper case, prefixed with its first argument."""
import sys

prefix = sys.argv[1] if len(sys.argv) > 4 else "exec"
prompt = sys.argv[-3]
print("%s: %s" % (prefix, prompt.upper()))
