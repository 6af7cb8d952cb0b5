package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/action"
	"github.com/agentv/action/action/actiontest"
)

// A step summary that an earlier run in the same step has nearly filled: this run's summary
// degrades to what fits within the file's 1 MiB limit instead of being dropped.
func TestActionSummaryDegradesInAPartlyFilledFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	full := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/*.yaml", "comment": "off", "details": "all"})
	if full.summary == "" {
		t.Fatalf("no summary in an empty file:\n%s", full.stdout)
	}
	// Leave room for the headline but not for the whole summary.
	earlier := strings.Repeat("earlier run\n", (action.MaxSummaryBytes-len(full.summary)/2)/12)
	res := runActionWithSummary(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/*.yaml", "comment": "off", "details": "all"}, earlier)
	if strings.Contains(res.stdout, "could not write the job summary") {
		t.Errorf("the summary was dropped:\n%s", res.stdout)
	}
	added, ok := strings.CutPrefix(res.summary, earlier)
	if !ok {
		t.Fatalf("the earlier content was changed")
	}
	if len(res.summary) > action.MaxSummaryBytes {
		t.Errorf("summary file has %d bytes, over the limit", len(res.summary))
	}
	if !strings.Contains(added, "AgentV evals:") || !strings.Contains(added, "**Outcome:") {
		t.Errorf("the headline is missing:\n%s", added)
	}
	if len(added) >= len(full.summary) {
		t.Errorf("appended %d bytes, no less than the full %d", len(added), len(full.summary))
	}
}

// runActionWithSummary runs the Action with the step summary file holding earlier content.
func runActionWithSummary(t *testing.T, ws, event string, gh *actiontest.GitHub, inputs map[string]string, earlier string) actionRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), "summary")
	if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runActionEnv(t, ws, event, gh, inputs, "GITHUB_STEP_SUMMARY="+path)
	b, _ := os.ReadFile(path)
	res.summary = string(b)
	return res
}
