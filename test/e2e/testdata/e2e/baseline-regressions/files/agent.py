# Answers "SCORE=<n>", which judge.py scores n: 0.9 for every case, but when the run's
# environment says AGENTV_E2E_ROUND=worse, 0.4 for c2 and 0.6 for c5.
import sys, os
prompt = sys.argv[1]
worse = os.environ.get("AGENTV_E2E_ROUND") == "worse"
score = 0.9
if worse and ("case c2" in prompt or "case c5" in prompt):
    score = {"case c2": 0.4, "case c5": 0.6}["case c2" if "case c2" in prompt else "case c5"]
print("SCORE=%s" % score)
