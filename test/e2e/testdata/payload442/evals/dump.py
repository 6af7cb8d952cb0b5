# Writes its stdin to $DUMP_DIR/<argv[1]> and passes: the payload as a grader receives it.
import json, os, sys
data = sys.stdin.read()
with open(os.path.join(os.environ["DUMP_DIR"], sys.argv[1]), "w") as f:
    f.write(data)
print(json.dumps({"score": 1}))
