package e2e_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// noisyAgent answers "SCORE=<n>" with n drawn per trial from a generator seeded by the run's
// seed (seed.txt), the case and a per-case counter, so each run draws other scores and a rerun
// with the same seed draws the same ones. Cases c1 and c2 score 0.9 or 1 in every trial (0.5
// less when worse.txt exists); the others 0.5 or 1, so their trials disagree about passing and
// their means move from run to run with nothing changed. The second trial of c8 errors.
// Cases run in parallel (workers: 8); the trials of one case run in turn, so the counter holds.
// Python runs without its site module (-S): 400 interpreter starts are most of this test's CPU.
const noisyAgent = `import os, random, sys
here = os.path.dirname(os.path.abspath(__file__))
case = sys.argv[1].split()[-1]
seed = open(os.path.join(here, "seed.txt")).read().strip()
counter = os.path.join(here, "counter-%s-%s" % (seed, case))
n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
open(counter, "w").write(str(n))
if case == "c8" and n == 2:
    sys.exit("agent crashed")
rng = random.Random("%s/%s/%d" % (seed, case, n))
if case in ("c1", "c2"):
    score = rng.choice([0.9, 1.0]) - (0.5 if os.path.exists(os.path.join(here, "worse.txt")) else 0)
else:
    score = rng.choice([0.5, 1.0])
print("SCORE=%s" % round(score, 2))
`

func noisyWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	var cases strings.Builder
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"} {
		cases.WriteString("  - id: " + id + "\n    input: case " + id + "\n")
	}
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"agent.py":  noisyAgent,
		"judge.py": `import json, re, sys
d = json.load(sys.stdin)
m = re.search(r"SCORE=([0-9.]+)", d.get("candidate_answer", ""))
s = float(m.group(1)) if m else 0.0
print(json.dumps({"score": s, "hits": [], "misses": [] if s >= 0.8 else ["answer got worse"]}))
`,
		"targets.yaml":     "targets:\n  - name: default\n    provider: cli\n    workers: 8\n    command_template: python3 -S ../agent.py {PROMPT}\n",
		"evals/suite.yaml": "evaluators:\n  - name: score\n    type: code_judge\n    script: [python3, -S, ../judge.py]\nevalcases:\n" + cases.String(),
	})
	return ws
}

// A noisy suite run as 5 trials of each case (mean strategy), three times: the first run is
// the baseline; the second changes nothing but the random draws, so cases whose means moved
// by more than the margin are within the noise, not regressions, and max-regressions 0
// passes; the third makes c1 and c2 fall by 0.5 in every trial, and exactly those two are
// regressions, listed first in the summary. agentv report on each results file reaches the
// run's outcome from the regression settings the run recorded.
func TestBaselineTrialsEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	ws := noisyWorkspace(t)
	args := []string{"eval", "evals/suite.yaml", "--trials", "5", "--trials-strategy", "mean", "--max-failures", "8"}
	eval := func(seed string, extra ...string) runResult {
		t.Helper()
		writeFiles(t, ws, map[string]string{"seed.txt": seed})
		return agentv(t, ws, nil, append(append([]string{}, args...), extra...)...)
	}
	first := eval("1")
	if first.code != 0 || len(first.records) != 8 {
		t.Fatalf("first run: exit %d, %d records\n%s%s", first.code, len(first.records), first.stdout, first.stderr)
	}
	base := filepath.Join(first.outDir, "results.jsonl")
	before := first.byID()

	// Nothing changed but the draws.
	same := eval("2", "--baseline", base, "--max-regressions", "0")
	if same.code != 0 || !strings.Contains(same.stdout, "Regressed: 0   Improved: 0   New: 0   Removed: 0   Within the noise: 2") {
		t.Fatalf("second run: exit %d, want 0 with 2 cases within the noise\n%s%s", same.code, same.stdout, same.stderr)
	}
	for _, r := range same.records {
		b := before[r.EvalID]
		if len(r.Trials) != 5 || r.BaselineScore == nil || b == nil || math.Abs(*r.BaselineScore-b.Score) > 1e-9 {
			t.Errorf("%s: %d trials, baseline_score %v; want 5 trials and the first run's score", r.EvalID, len(r.Trials), r.BaselineScore)
		}
	}
	if c8 := same.byID()["c8"]; c8 == nil || c8.Trials[1].Verdict != results.VerdictError || c8.Verdict == results.VerdictError {
		t.Errorf("c8: want its second trial errored and the case scored: %+v", c8)
	}
	md := readFile(t, filepath.Join(same.outDir, "summary.md"))
	noise, _, _ := strings.Cut(md[max(strings.Index(md, "〰️ Moved by more than 0.1 within the noise"), 0):], "</details>")
	if strings.Contains(md, "Regressions") || strings.Count(noise, "🎲 flaky |") != 2 || !strings.Contains(noise, "(5 + 5 trials)") {
		t.Errorf("summary of the unchanged run: want no regressions and two flaky cases within the noise:\n%s", md)
	}

	// c1 and c2 fall by 0.5 in every trial.
	writeFiles(t, ws, map[string]string{"worse.txt": "worse\n"})
	worse := eval("3", "--baseline", base, "--max-regressions", "0")
	if worse.code != 1 || !strings.Contains(worse.stdout, "2 cases regressed against the baseline (max-regressions 0): c1, c2\n") {
		t.Fatalf("third run: exit %d, want 1 naming c1 and c2\n%s%s", worse.code, worse.stdout, worse.stderr)
	}
	md = readFile(t, filepath.Join(worse.outDir, "summary.md"))
	table := md[strings.Index(md, "\n|")+1:]
	table = table[:strings.Index(table, "\n\n")]
	rows := strings.Split(table, "\n")
	if len(rows) != 4 || rows[0] != "| Case | Before → after | Δ | Why |" ||
		!strings.HasPrefix(rows[2], "| c1 | "+threeDecimals(before["c1"].Score)+" → "+threeDecimals(before["c1"].Score-0.5)+" | −0.500 | ") ||
		!strings.HasPrefix(rows[3], "| c2 | "+threeDecimals(before["c2"].Score)+" → "+threeDecimals(before["c2"].Score-0.5)+" | −0.500 | ") ||
		!strings.Contains(rows[2], "(5 + 5 trials)") {
		t.Errorf("first table of the summary is not c1 and c2 with before → after:\n%s", table)
	}

	// The run recorded its baseline and regression settings in its start record.
	start, err := results.ReadRunStart(filepath.Join(worse.outDir, "results.jsonl"))
	if err != nil || start == nil || start.Baseline == nil {
		t.Fatalf("start record of the third run: %+v, %v", start, err)
	}
	if b := start.Baseline; b.Source != base || len(b.SHA256) != 64 || b.Cases != 8 || b.RegressionMargin != 0.1 ||
		b.MaxRegressions == nil || *b.MaxRegressions != 0 || b.MaxMeanDrop != nil {
		t.Errorf("start record's baseline = %+v, want %s, its hash, 8 cases, margin 0.1, max-regressions 0", b, base)
	}

	// The report reaches each run's outcome without the regression flags: the run recorded them.
	for _, tt := range []struct {
		name string
		run  runResult
		code int
	}{{"unchanged", same, 0}, {"worse", worse, 1}} {
		rep := agentv(t, ws, nil, "report", "--results", filepath.Join(tt.run.outDir, "results.jsonl"), "--out-dir", t.TempDir(), "--baseline", base)
		if rep.code != tt.code || rep.code == 1 && !strings.Contains(rep.stdout, "(max-regressions 0): c1, c2") {
			t.Errorf("report of the %s run: exit %d, want %d\n%s%s", tt.name, rep.code, tt.code, rep.stdout, rep.stderr)
		}
	}
	report := func(args ...string) runResult {
		t.Helper()
		return agentv(t, ws, nil, append([]string{"report", "--results", filepath.Join(worse.outDir, "results.jsonl"), "--out-dir", t.TempDir()}, args...)...)
	}
	// Flags given win over the recorded settings.
	if rep := report("--baseline", base, "--max-regressions", "2"); rep.code != 0 || !strings.Contains(rep.stdout, "Regressed: 2") {
		t.Errorf("report with --max-regressions 2: exit %d, want 0\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	if rep := report("--baseline", base, "--regression-margin", "0.6"); rep.code != 0 || !strings.Contains(rep.stdout, "Regressed: 0") {
		t.Errorf("report with --regression-margin 0.6: exit %d, want 0\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	// Without --baseline the report is not compared, and says the run was.
	if rep := report(); rep.code != 0 || !strings.Contains(rep.stderr, "the run was compared with the baseline "+base+"; give --baseline") {
		t.Errorf("report without --baseline: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	// Another baseline than the run's is named.
	other := filepath.Join(same.outDir, "results.jsonl")
	if rep := report("--baseline", other); !strings.Contains(rep.stderr, "the run was compared with another baseline ("+base+", 8 cases) than this report") {
		t.Errorf("report against another baseline: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	// Under pass_at_k (the default strategy) trials stop at the first pass: c1 and c2 have one
	// score before, and their fall cannot be significant. The comparison says so.
	if err := os.Remove(filepath.Join(ws, "worse.txt")); err != nil {
		t.Fatal(err)
	}
	args = []string{"eval", "evals/suite.yaml", "--trials", "5", "--max-failures", "8"}
	atK := eval("4")
	writeFiles(t, ws, map[string]string{"worse.txt": "worse\n"})
	res := eval("5", "--baseline", filepath.Join(atK.outDir, "results.jsonl"), "--max-regressions", "0")
	md = readFile(t, filepath.Join(res.outDir, "summary.md"))
	if atK.code != 0 || res.code != 0 || !strings.Contains(res.stdout, "Note: 8 compared cases ran pass_at_k trials") ||
		!strings.Contains(md, "> ⚠️ 8 compared cases ran `pass_at_k` trials") {
		t.Errorf("pass_at_k: exits %d and %d, want 0 and 0 with a note\n%s%s", atK.code, res.code, res.stdout, md)
	}
}

func threeDecimals(f float64) string { return fmt.Sprintf("%.3f", f) }
