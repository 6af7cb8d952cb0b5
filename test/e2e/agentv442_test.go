package e2e_test

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

// The fixture testdata/agentv442 is a 4.x suite (greet.eval.yaml, and nameless.eval.yaml, the
// same without `name`) answered by a cli agent, and the run directories AgentV 4.42.4 wrote
// for them (`agentv eval greet.eval.yaml -o run`, `... nameless.eval.yaml -o run-nameless`):
// hello passes, bye scores 0, half 0.5, and boom's agent crashes (an execution error).

// agentv442Workspace copies the fixture into a fresh folder with a .git, so runs and reports
// write nothing into the repository.
func agentv442Workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	src := filepath.Join(moduleRoot(), "test", "e2e", "testdata", "agentv442")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(ws, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	return ws
}

// A 4.42.4 run directory, or its index.jsonl, as --baseline matches every case of the same
// suite run by us (test_id within suite, the suite named by `name` or by the file), with
// each case's baseline score.
func TestAgentV442RunAsBaseline(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	for _, tc := range []struct{ suite, baseline string }{
		{"greet.eval.yaml", "run"},
		{"greet.eval.yaml", "run/index.jsonl"},
		{"nameless.eval.yaml", "run-nameless"},
	} {
		res := agentv(t, ws, nil, "eval", tc.suite, "--baseline", tc.baseline)
		if res.code != 3 || !strings.Contains(res.stdout, "Regressed: 0   Improved: 0   New: 0   Removed: 0") {
			t.Fatalf("%s against %s: exit %d, want 3 with every case matched\n%s%s", tc.suite, tc.baseline, res.code, res.stdout, res.stderr)
		}
		want := map[string]float64{"hello": 1, "bye": 0, "half": 0.5, "boom": 0}
		for id, r := range res.byID() {
			if r.BaselineScore == nil || *r.BaselineScore != want[id] {
				t.Errorf("%s: case %s: baseline_score %v, want %v", tc.baseline, id, r.BaselineScore, want[id])
			}
		}
	}
}

// `agentv report --results` on a 4.42.4 run directory reports its cases as they ran: one
// passed, two failed, one errored with 4.42.4's error, the answers read from the run's
// answer files.
func TestAgentV442RunReport(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	out := t.TempDir()
	res := agentv(t, ws, nil, "report", "--results", "run", "--out-dir", out)
	if res.code != 3 || !strings.Contains(res.stdout, "Passed: 1   Failed: 2   Errored: 1") {
		t.Fatalf("report: exit %d, want 3 with 1 passed, 2 failed, 1 errored\n%s%s", res.code, res.stdout, res.stderr)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"answer: say bye", "crash (exit code 3)", "Output does not contain"} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, summary)
		}
	}
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(junit), `name="half" classname="greet"`) {
		t.Errorf("junit.xml does not name the case half of greet:\n%s", junit)
	}
}

// A 4.42.4 index.jsonl has no run records: the report's note says it is one, not that an
// AgentV 2.5 or an older agentv wrote it.
func TestAgentV442IndexNote(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	res := agentv(t, ws, nil, "report", "--results", "run/index.jsonl", "--out-dir", t.TempDir())
	all := res.stdout + res.stderr
	if res.code != 3 || !strings.Contains(all, "this is an AgentV 4.x index.jsonl (a 4.x run directory's), which has no run records") ||
		strings.Contains(all, "AgentV 2.5") {
		t.Errorf("report: exit %d, want 3 and the note naming a 4.x index.jsonl\n%s", res.code, all)
	}
}

// baseline: auto in the Action, where the base branch's artifact holds AgentV 4.42.4's run
// directory (uploaded as it is, with no results.jsonl): its index.jsonl is the baseline and
// every case is matched.
func TestActionBaselineAutoAgentV442(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	run := filepath.Join(ws, "run")
	err := filepath.WalkDir(run, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(run, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil || zw.Close() != nil {
		t.Fatal(err)
	}
	gh := actiontest.StartGitHub(t)
	wr := func(id int64, branch, event, concl, at string) actiontest.WorkflowRun {
		return actiontest.WorkflowRun{ID: id, RunNumber: int(id), WorkflowID: 7, HeadBranch: branch, HeadSHA: "0123456789abcdef",
			Event: event, Status: "completed", Conclusion: concl, CreatedAt: at, HTMLURL: "https://github.com/octo-org/agent/actions/runs/" + strconv.FormatInt(id, 10)}
	}
	gh.AddRun(wr(99, "feature", "pull_request", "", "2026-02-01T00:00:00Z"))
	gh.AddRun(wr(41, "main", "push", "success", "2026-01-25T00:00:00Z"))
	gh.AddArtifact(41, "agentv-results", buf.Bytes(), false)
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{
		"evals": "greet.eval.yaml", "baseline": "auto", "comment": "off",
	})
	if res.outputs["regressions"] != "0" || res.outputs["mean-score-delta"] != "0.0000" ||
		!strings.Contains(res.summary, "over 4 cases in both runs · 🔻 0 regressed · 🔺 0 improved · 🆕 0 new · 🗑️ 0 removed") {
		t.Errorf("exit %d, outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.summary)
	}
}
