package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

// In the fork recipe the report step renders a results file another job wrote. A run killed
// in the middle left a start record and no end record: the sticky comment, the summary and
// the check all say invalid, with how many cases finished, never pass.
func TestActionReportOfKilledRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	full := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/*.yaml", "max-failures": "1", "comment": "off"})
	if full.code != 0 {
		t.Fatalf("eval: exit %d\n%s", full.code, full.stdout)
	}
	b, err := os.ReadFile(filepath.Join(ws, "agentv-results", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if !strings.HasPrefix(lines[0], `{"record":"run_start"`) {
		t.Fatalf("no start record: %s", lines[0])
	}
	// What a killed run leaves: the start record and the cases finished so far.
	writeFiles(t, ws, map[string]string{"killed.jsonl": strings.Join(lines[:3], "")})
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"mode": "report", "results": "killed.jsonl",
		"max-failures": "1", "comment": "always"})
	if res.code != 2 || res.outputs["outcome"] != "invalid" {
		t.Errorf("report of a killed run: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	comments := gh.Comments(42)
	if len(comments) != 1 {
		t.Fatalf("PR 42 has %d comments, want 1\n%s", len(comments), res.stdout)
	}
	for name, s := range map[string]string{"comment": comments[0].Body, "summary": res.summary} {
		if !strings.Contains(s, "AgentV evals: invalid") || !strings.Contains(s, "2 of an unknown number of cases") || !strings.Contains(s, "did not finish") {
			t.Errorf("%s does not say the run did not finish:\n%s", name, s)
		}
	}
}

// A matrix of shards posts no comment and gates on its own cases; the final job merges the
// shards' results (a glob) with mode report into one comment and one outcome, the whole run's.
func TestActionShardsAndMergedReport(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	total := 0
	for i := 1; i <= 2; i++ {
		res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/*.yaml", "shard": fmt.Sprintf("%d/2", i),
			"comment": "always", "results-dir": fmt.Sprintf("shards/%d", i)})
		if res.code > 1 {
			t.Fatalf("shard %d: exit %d\n%s", i, res.code, res.stdout)
		}
		n, _ := strconv.Atoi(res.outputs["total"])
		total += n
	}
	if n := len(gh.Comments(42)); n != 0 {
		t.Errorf("the shards posted %d comments, want none", n)
	}
	if total != 3 {
		t.Errorf("the shards ran %d cases, want 3", total)
	}
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"mode": "report", "results": "shards/*/results.jsonl",
		"comment": "always", "results-dir": "merged"})
	if res.code != 1 || res.outputs["outcome"] != "fail" || res.outputs["total"] != "3" || res.outputs["failed"] != "1" {
		t.Errorf("merged report: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
	if n := len(gh.Comments(42)); n != 1 {
		t.Errorf("the merged report posted %d comments, want 1", n)
	}
	// The merge writes the records of all shards to one results file, named by results-path.
	if p := res.outputs["results-path"]; p != "merged/results.jsonl" {
		t.Errorf("results-path of a merged report = %q, want merged/results.jsonl", p)
	}
	for _, f := range []string{"results.jsonl", "junit.xml", "summary.md", "comment.md"} {
		if _, err := os.Stat(filepath.Join(ws, "merged", f)); err != nil {
			t.Errorf("merged %s: %v", f, err)
		}
	}
	// That file alone reports as the merge did.
	again := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"mode": "report", "results": "merged/results.jsonl",
		"comment": "off", "results-dir": "again"})
	if again.code != 1 || again.outputs["outcome"] != "fail" || again.outputs["total"] != "3" || again.outputs["failed"] != "1" ||
		again.outputs["results-path"] != "merged/results.jsonl" {
		t.Errorf("report of the merged file: exit %d outputs %v\n%s", again.code, again.outputs, again.stdout)
	}
	// A shard given twice makes the merged outcome invalid, with a message naming it.
	b, err := os.ReadFile(filepath.Join(ws, "shards", "1", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{"again.jsonl": string(b)})
	res = runAction(t, ws, "event-pull_request.json", gh, map[string]string{"mode": "report", "results": "shards/*/results.jsonl\nagain.jsonl",
		"comment": "always", "results-dir": "merged"})
	if res.code != 2 || res.outputs["outcome"] != "invalid" || !strings.Contains(gh.Comments(42)[0].Body, "shard 1 of 2 is in") {
		t.Errorf("a shard given twice: exit %d outputs %v\n%s", res.code, res.outputs, res.stdout)
	}
}
