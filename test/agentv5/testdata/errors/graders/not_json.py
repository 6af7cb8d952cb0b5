#!/usr/bin/env python3
"""script grader that exits 0 but prints text that is not the JSON protocol."""
print("looks fine to me")
