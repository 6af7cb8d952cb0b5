package main_test

import (
	"os"
	"path/filepath"
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
