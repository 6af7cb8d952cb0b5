# A prompt template that writes its stdin to $DUMP_DIR/template.json.
import os, sys
with open(os.path.join(os.environ["DUMP_DIR"], "template.json"), "w") as f:
    f.write(sys.stdin.read())
print("Grade the answer.")
