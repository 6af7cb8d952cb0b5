#!/usr/bin/env python3
"""The recipe's setup: without setup.cwd it runs in the recipe file's folder."""
import os

workdir = os.environ["AGENTV_ENVIRONMENT_WORKDIR"]
with open(os.path.join(workdir, "mode.txt"), "w", encoding="utf-8") as f:
    f.write(os.environ.get("MODE", "<unset>") + " in " + os.path.basename(os.getcwd()))
