# Answers "SCORE=<n>" with n drawn per trial from a generator seeded by the run's seed
# (AGENTV_E2E_SEED), the case and a per-case counter, so each run draws other scores and a
# rerun with the same seed draws the same ones. Cases c1 and c2 score 0.9 or 1 in every trial
# (0.5 less when AGENTV_E2E_WORSE is set); the others 0.5 or 1, so their trials disagree about
# passing and their means move from run to run with nothing changed. The second trial of c8
# errors. Python runs without its site module (-S): 400 interpreter starts are most of this
# scenario's CPU.
import os, random, sys
here = os.path.dirname(os.path.abspath(__file__))
case = sys.argv[1].split()[-1]
seed = os.environ["AGENTV_E2E_SEED"]
counter = os.path.join(here, "counter-%s-%s" % (seed, case))
n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
open(counter, "w").write(str(n))
if case == "c8" and n == 2:
    sys.exit("agent crashed")
rng = random.Random("%s/%s/%d" % (seed, case, n))
if case in ("c1", "c2"):
    score = rng.choice([0.9, 1.0]) - (0.5 if os.environ.get("AGENTV_E2E_WORSE") else 0)
else:
    score = rng.choice([0.5, 1.0])
print("SCORE=%s" % round(score, 2))
