package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/action/actiontest"
)

// caseLine is a results record of case id in dataset qa.
func caseLine(id string, score float64) string {
	verdict := "pass"
	if score < 0.8 {
		verdict = "fail"
	}
	return fmt.Sprintf(`{"eval_id":%q,"dataset":"qa","score":%g,"verdict":%q,"file":"evals/qa.yaml","line":3}`, id, score, verdict)
}

// startLine is a run's start record at day d of January 2026.
func startLine(d int) string {
	return fmt.Sprintf(`{"record":"run_start","format":1,"timestamp":"2026-01-%02dT00:00:00Z"}`, d)
}

// `agentv report --history` orders earlier runs by their start records, leaves the reported
// file out of its own history, and writes the trend and "failing since" into summary.md.
func TestReportHistoryLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel string, lines ...string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Folder names sort against their start times: the order must come from the records.
	write("runs/e/results.jsonl", startLine(1), caseLine("a", 1), caseLine("b", 1))
	write("runs/d/results.jsonl", startLine(2), caseLine("a", 1), caseLine("b", 0.9))
	write("runs/c/results.jsonl", startLine(3), caseLine("a", 0.2), caseLine("b", 1))
	write("runs/b/results.jsonl", startLine(4), caseLine("a", 0.3), caseLine("b", 1))
	write("runs/a/results.jsonl", caseLine("a", 0.1), caseLine("b", 0.1)) // the reported run
	var stdout, stderr bytes.Buffer
	c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: dir}
	code := c.Main(context.Background(), []string{"report", "--results", "runs/a/results.jsonl", "--history", "runs/*/results.jsonl", "--out-dir", "out"})
	if code != 1 {
		t.Fatalf("exit %d, want 1 (failures)\n%s%s", code, stdout.String(), stderr.String())
	}
	sum, err := os.ReadFile(filepath.Join(dir, "out", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"### 📈 Trend over the last 5 runs",
		`x-axis "run" ["e", "d", "c", "b", "this run"]`,
		"line [100, 100, 50, 50, 0]",
		"a <sub>🔁 failing since c (3 runs)</sub>",
		"b <sub>🆕 newly failing</sub>",
	} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(string(sum), "report.html") {
		t.Error("a local report links to a workflow run's artifacts")
	}

	// A glob that matches nothing is an input problem, named.
	stderr.Reset()
	code = c.Main(context.Background(), []string{"report", "--results", "runs/a/results.jsonl", "--history", "old/*/results.jsonl", "--out-dir", "out"})
	if code != 2 || !strings.Contains(stderr.String(), `--history: no results file matches "old/*/results.jsonl"`) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	// A file that is not results is named with its line.
	write("runs/broken/results.jsonl", "{oops")
	stderr.Reset()
	code = c.Main(context.Background(), []string{"report", "--results", "runs/a/results.jsonl", "--history", "runs/*/results.jsonl", "--out-dir", "out"})
	if code != 2 || !strings.Contains(stderr.String(), "runs/broken/results.jsonl: line 1: not a results record") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

func zipOf(t *testing.T, name, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The history input in the Action: five base runs on the loopback API (one expired, one
// holding no results) give the summary and the comment their trend and "failing since",
// the runs that cannot be read are warnings naming them, and the run still reports.
func TestActionHistory(t *testing.T) {
	t.Parallel()
	gh := actiontest.StartGitHub(t)
	gh.Token = "test-token"
	gh.AddRun(actiontest.WorkflowRun{ID: 99, RunNumber: 60, WorkflowID: 7, HeadBranch: "refund-prompt", Event: "pull_request", Status: "in_progress"})
	for i := range 5 {
		id := int64(50 + i)
		gh.AddRun(actiontest.WorkflowRun{ID: id, RunNumber: int(id), WorkflowID: 7, HeadBranch: "main", HeadSHA: "abcdef1234567890",
			Event: "push", Status: "completed", Conclusion: "success", CreatedAt: time.Date(2026, 1, 10+i, 0, 0, 0, 0, time.UTC).Format(time.RFC3339),
			HTMLURL: "https://github.com/octo-org/agent/actions/runs/" + strconv.FormatInt(id, 10)})
		score := 1.0
		if i >= 3 {
			score = 0.2
		}
		body := startLine(10+i) + "\n" + caseLine("a", score) + "\n" + caseLine("b", 1) + "\n"
		switch i {
		case 1:
			gh.AddArtifact(id, "agentv-results", zipOf(t, "results.jsonl", body), true)
		case 2:
			gh.AddArtifact(id, "agentv-results", zipOf(t, "results.jsonl", "not json\n"), false)
		default:
			gh.AddArtifact(id, "agentv-results", zipOf(t, "results.jsonl", body), false)
		}
	}
	ws, tmp := t.TempDir(), t.TempDir()
	cur := caseLine("a", 0.1) + "\n" + caseLine("b", 0.1) + "\n"
	if err := os.WriteFile(filepath.Join(ws, "current.jsonl"), []byte(cur), 0o644); err != nil {
		t.Fatal(err)
	}
	sumPath, outPath := filepath.Join(tmp, "summary"), filepath.Join(tmp, "output")
	event, _ := filepath.Abs(filepath.Join("..", "..", "action", "testdata", "event-pull_request.json"))
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": ws, "GITHUB_STEP_SUMMARY": sumPath, "GITHUB_OUTPUT": outPath,
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event, "GITHUB_API_URL": gh.APIURL(),
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "octo-org/agent", "GITHUB_RUN_ID": "99", "RUNNER_TEMP": tmp,
		"INPUT_MODE": "report", "INPUT_RESULTS": "current.jsonl", "INPUT_HISTORY": "5", "INPUT_GITHUB-TOKEN": "test-token",
		"INPUT_COMMENT": "always",
	}
	var stdout, stderr bytes.Buffer
	c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }, Cwd: ws}
	if code := c.Main(context.Background(), nil); code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout.String(), stderr.String())
	}
	log := stdout.String()
	for _, want := range []string{
		"::warning title=agentv history::history: run 51 on main (abcdef1) (https://github.com/octo-org/agent/actions/runs/51) is left out: no baseline: the \"agentv-results\" artifact of run 51 on main (abcdef1) has expired",
		"::warning title=agentv history::history: run 52 on main (abcdef1) (https://github.com/octo-org/agent/actions/runs/52) is left out: its results: line 1: not a results record",
		"::notice title=agentv history::history: 3 earlier runs of main",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	sum, _ := os.ReadFile(sumPath)
	comments := gh.Comments(42)
	if len(comments) != 1 {
		t.Fatalf("%d comments", len(comments))
	}
	for name, md := range map[string]string{"summary": string(sum), "comment": comments[0].Body} {
		for _, want := range []string{
			"### 📈 Trend over the last 4 runs",
			`x-axis "run" ["#50", "#53", "#54", "this run"]`,
			"line [100, 50, 50, 0]",
			"qa.yaml#L3) <sub>🔁 failing since [#\u200d53](https://github.com/octo-org/agent/actions/runs/53) (3 runs)</sub>",
			"qa.yaml#L3) <sub>🆕 newly failing</sub>",
			"[Browse every case in report.html](https://github.com/octo-org/agent/actions/runs/99#artifacts)",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, md)
			}
		}
	}
	// report.html draws each case's score over the same runs.
	page, err := os.ReadFile(filepath.Join(ws, "agentv-results", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"run":"#53","url":"https://github.com/octo-org/agent/actions/runs/53","s":0.2,"st":"fail"}`,
		`{"run":"#50","url":"https://github.com/octo-org/agent/actions/runs/50","s":1,"st":"pass"}`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks the history point %s", want)
		}
	}
}
