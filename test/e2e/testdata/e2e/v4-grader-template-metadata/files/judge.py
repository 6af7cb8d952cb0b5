import json, sys
prompt = open(sys.argv[1]).read()
pretty = '{\n  "team": "search",\n  "tags": [\n    "b",\n    "c",\n    "a"\n  ],\n  "nested": {\n    "x": 1.5,\n    "y": "<b> & \\"q\\""\n  },\n  "owner": "qa"\n}'
compact = '{"team":"search","tags":["b","c","a"],"nested":{"x":1.5,"y":"<b> & \\"q\\""},"owner":"qa"}'
if "META:" + pretty + "\nMJ:" + compact + "\n" in prompt:
    score, text = 1, "the merged metadata"
elif "META:\nMJ:\n" in prompt:
    score, text = 0.5, "no metadata"
else:
    score, text = 0, "something else: " + prompt
json.dump({"score": score, "assertions": [{"text": text, "passed": score > 0}]}, open(sys.argv[2], "w"))
