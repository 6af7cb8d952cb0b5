#!/usr/bin/env python3
"""script grader that fails: writes to stderr and exits 3."""
import sys

sys.stderr.write("grader crashed on purpose\n")
sys.exit(3)
