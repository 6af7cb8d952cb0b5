# A cli target answering with the canned JSON output file named by the "resp=NAME" token of
# its prompt (AgentV 4.x's output file: messages with tool calls, token usage, cost and
# duration).
import os, re, shutil, sys
m = re.search(r"resp=(\w+)", " ".join(sys.argv[2:]))
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resp", (m.group(1) if m else "none") + ".json")
shutil.copy(src, sys.argv[1])
