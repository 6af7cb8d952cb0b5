package e2e_test

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

// baselineWorkspace is the repository of the baseline-regressions scenario: six cases
// answered by a deterministic cli agent, two of them worse when AGENTV_E2E_ROUND=worse.
func baselineWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("testdata", "e2e", "baseline-regressions", "files"))); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	return ws
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
		res := runActionEnv(t, ws, "event-pull_request.json", gh, map[string]string{
			"evals": "evals/suite.yaml", "case-threshold": "0.3", "baseline": "auto", "max-regressions": "0", "comment": "off",
		}, "AGENTV_E2E_ROUND=worse")
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
