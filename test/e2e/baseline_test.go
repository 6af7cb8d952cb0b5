package e2e_test

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

// baselineWorkspace is a suite of six cases answered by a deterministic cli agent: it
// answers "SCORE=<n>" and a code judge scores the answer n. The file round.txt, when it
// says "worse", makes the agent answer cases c2 and c5 worse.
func baselineWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	var cases strings.Builder
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5", "c6"} {
		cases.WriteString("  - id: " + id + "\n    input: case " + id + "\n")
	}
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"agent.py": `import sys, os
prompt = sys.argv[1]
round = os.path.join(os.path.dirname(os.path.abspath(__file__)), "round.txt")
worse = os.path.exists(round) and open(round).read().strip() == "worse"
score = 0.9
if worse and ("case c2" in prompt or "case c5" in prompt):
    score = {"case c2": 0.4, "case c5": 0.6}["case c2" if "case c2" in prompt else "case c5"]
print("SCORE=%s" % score)
`,
		"judge.py": `import json, re, sys
d = json.load(sys.stdin)
m = re.search(r"SCORE=([0-9.]+)", d.get("candidate_answer", ""))
s = float(m.group(1)) if m else 0.0
print(json.dumps({"score": s, "hits": [], "misses": [] if s >= 0.9 else ["answer got worse"]}))
`,
		"targets.yaml":     "targets:\n  - name: default\n    provider: cli\n    workers: 6\n    command_template: python3 -S ../agent.py {PROMPT}\n",
		"evals/suite.yaml": "evaluators:\n  - name: score\n    type: code_judge\n    script: [python3, -S, ../judge.py]\nevalcases:\n" + cases.String(),
	})
	return ws
}

// A suite run twice, the second time with two cases worse: against the first run's results
// the second fails with max-regressions 0, naming both, and the summary's first table lists
// exactly those two cases with before → after.
func TestBaselineRegressionsEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	ws := baselineWorkspace(t)
	first := agentv(t, ws, nil, "eval", "evals/suite.yaml", "--case-threshold", "0.3")
	if first.code != 0 || len(first.records) != 6 {
		t.Fatalf("first run: exit %d, %d records\n%s%s", first.code, len(first.records), first.stdout, first.stderr)
	}
	base := filepath.Join(first.outDir, "results.jsonl")
	writeFiles(t, ws, map[string]string{"round.txt": "worse\n"})

	// Without max-regressions the comparison is reported and the run passes.
	res := agentv(t, ws, nil, "eval", "evals/suite.yaml", "--case-threshold", "0.3", "--baseline", base)
	if res.code != 0 || !strings.Contains(res.stdout, "Regressed: 2   Improved: 0   New: 0   Removed: 0") {
		t.Fatalf("second run without a gate: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, r := range res.records {
		if r.BaselineScore == nil || *r.BaselineScore != 0.9 {
			t.Errorf("record %s: baseline_score %v, want 0.9", r.EvalID, r.BaselineScore)
		}
	}

	res = agentv(t, ws, nil, "eval", "evals/suite.yaml", "--case-threshold", "0.3", "--baseline", base, "--max-regressions", "0")
	if res.code != 1 || !strings.Contains(res.stdout, "2 cases regressed against the baseline (max-regressions 0): c2, c5") {
		t.Fatalf("second run: exit %d, want 1 naming c2 and c5\n%s%s", res.code, res.stdout, res.stderr)
	}
	second := res
	summary, err := os.ReadFile(filepath.Join(res.outDir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(summary)
	table := md[strings.Index(md, "\n|")+1:]
	table = table[:strings.Index(table, "\n\n")]
	want := "| Case | Before → after | Δ | Why |\n|---|--:|--:|---|\n" +
		"| c2 | 0.900 → 0.400 | −0.500 | one run each (no trials to test) |\n" +
		"| c5 | 0.900 → 0.600 | −0.300 | one run each (no trials to test) |"
	if table != want {
		t.Errorf("first table of the summary:\n%s\nwant\n%s", table, want)
	}
	if _, err := exec.LookPath("cmark-gfm"); err == nil {
		out, err := exec.Command("sh", "-c", "cmark-gfm --extension table --unsafe < "+filepath.Join(res.outDir, "comment.md")).Output()
		if err != nil {
			t.Fatal(err)
		}
		html := string(out)
		first, _, _ := strings.Cut(html[strings.Index(html, "<table>")+1:], "</table>")
		if !strings.Contains(first, "Before → after") || !strings.Contains(first, ">c2<") || !strings.Contains(first, ">c5<") || strings.Contains(first, ">c1<") {
			t.Errorf("the rendered comment's first table is not the regressions table:\n%s", first)
		}
	}

	// A baseline that does not exist is a notice: no comparison, no failure.
	res = agentv(t, ws, nil, "eval", "evals/suite.yaml", "--case-threshold", "0.3", "--baseline", filepath.Join(ws, "none.jsonl"), "--max-regressions", "0")
	if res.code != 0 || !strings.Contains(res.stderr, "no baseline: ") || strings.Contains(res.stdout, "Against the baseline") {
		t.Errorf("missing baseline: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// A baseline that is not a results file makes the run invalid before anything runs.
	writeFiles(t, ws, map[string]string{"bad.jsonl": "{\"eval_id\":\"c1\",\"score\":1}\nnot json\n"})
	res = agentv(t, ws, nil, "eval", "evals/suite.yaml", "--baseline", "bad.jsonl")
	if res.code != 2 || !strings.Contains(res.stdout+res.stderr, "bad.jsonl: line 2: not a results record") {
		t.Errorf("bad baseline: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// agentv report compares a results file with a baseline too.
	rep := agentv(t, ws, nil, "report", "--results", filepath.Join(second.outDir, "results.jsonl"), "--baseline", base, "--max-regressions", "0")
	if rep.code != 1 || !strings.Contains(rep.stdout, "2 cases regressed against the baseline (max-regressions 0): c2, c5") {
		t.Errorf("report against the baseline: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// baseline: auto in the Action: the base branch's newest successful push run of the same
// workflow is found through the API, its artifact downloaded and compared with; a missing
// artifact is a notice and the run is not compared.
func TestActionBaselineAuto(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	ws := baselineWorkspace(t)
	first := agentv(t, ws, nil, "eval", "evals/suite.yaml", "--case-threshold", "0.3")
	if first.code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", first.code, first.stdout, first.stderr)
	}
	results, err := os.ReadFile(filepath.Join(first.outDir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string][]byte{"results.jsonl": results, "summary.md": []byte("# old\n")} {
		w, _ := zw.Create(name)
		_, _ = w.Write(body)
	}
	_ = zw.Close()
	writeFiles(t, ws, map[string]string{"round.txt": "worse\n"})

	for _, tt := range []struct {
		name     string
		artifact bool
	}{{"artifact", true}, {"no artifact", false}} {
		gh := actiontest.StartGitHub(t)
		run := func(id, wid int64, branch, event, concl, at string) actiontest.WorkflowRun {
			return actiontest.WorkflowRun{ID: id, RunNumber: int(id), WorkflowID: wid, HeadBranch: branch, HeadSHA: "0123456789abcdef",
				Event: event, Status: "completed", Conclusion: concl, CreatedAt: at, HTMLURL: "https://github.com/octo-org/agent/actions/runs/" + strconv.FormatInt(id, 10)}
		}
		gh.AddRun(run(99, 7, "feature", "pull_request", "", "2026-02-01T00:00:00Z"))
		gh.AddRun(run(40, 7, "main", "push", "success", "2026-01-20T00:00:00Z"))
		gh.AddRun(run(41, 7, "main", "push", "success", "2026-01-25T00:00:00Z"))
		gh.AddRun(run(42, 7, "main", "push", "failure", "2026-01-26T00:00:00Z"))
		gh.AddRun(run(43, 8, "main", "push", "success", "2026-01-27T00:00:00Z"))
		gh.AddArtifact(40, "agentv-results", []byte("stale"), false)
		gh.AddArtifact(42, "agentv-results", []byte("failed run"), false)
		gh.AddArtifact(43, "agentv-results", []byte("other workflow"), false)
		if tt.artifact {
			gh.AddArtifact(41, "agentv-results", buf.Bytes(), false)
		}
		res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{
			"evals": "evals/suite.yaml", "case-threshold": "0.3", "baseline": "auto", "max-regressions": "0", "comment": "off",
		})
		if !tt.artifact {
			if res.code != 0 || res.outputs["regressions"] != "" || !strings.Contains(res.stdout, "::notice title=agentv baseline::no baseline") ||
				strings.Contains(res.summary, "Against the baseline") {
				t.Errorf("%s: exit %d, outputs %v\n%s", tt.name, res.code, res.outputs, res.stdout)
			}
			continue
		}
		if res.code != 1 || res.outputs["regressions"] != "2" || res.outputs["improvements"] != "0" || res.outputs["mean-score-delta"] != "-0.1333" {
			t.Errorf("%s: exit %d, outputs %v\n%s", tt.name, res.code, res.outputs, res.stdout)
		}
		// Each regression is annotated at its case's line, an error since it failed the run.
		for _, want := range []string{
			"::error file=evals/suite.yaml,line=8,title=eval case c2 regressed%3A 0.90 → 0.40::score 0.900 → 0.400 (-0.500) against the baseline; one run each (no trials to test)\n",
			"::error file=evals/suite.yaml,line=14,title=eval case c5 regressed%3A 0.90 → 0.60::score 0.900 → 0.600 (-0.300) against the baseline; one run each (no trials to test)\n",
		} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("%s: the log lacks the annotation %q:\n%s", tt.name, want, res.stdout)
			}
		}
		if !strings.Contains(res.summary, "**Against the baseline** (run 41 on main (0123456))") || !strings.Contains(res.summary, "/evals/suite.yaml#L8) | 0.900 → 0.400 | −0.500 | one run each (no trials to test) |") {
			t.Errorf("%s: summary:\n%s", tt.name, res.summary)
		}
	}
}
