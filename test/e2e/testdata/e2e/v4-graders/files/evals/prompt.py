import json, sys
d = json.load(sys.stdin)
print("Grade the answer {{ output }} for the question %s (%s). Level: %s" % (d["input"][0]["content"], d["answer"], d["config"]["level"]))
