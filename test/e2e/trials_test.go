package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

// TestTrialsAction runs the Action with the trials input: the flaky output counts the case
// whose trials disagreed, and the step summary marks it.
func TestTrialsAction(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3", "sh", "awk")
	gh := actiontest.StartGitHub(t)
	// The scenario's repository: a cli target whose answers change from call to call.
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("testdata", "e2e", "trials", "files"))); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals-flaky/old.yaml", "trials": "2", "trials-strategy": "mean", "comment": "off"})
	// flip: 0 then 1, mean 0.5: passed (a trial passed and the file sets no threshold, as in
	// AgentV 4.42.4) and flaky; steady: 1 and 1.
	if res.code != 0 || res.outputs["flaky"] != "1" || res.outputs["failed"] != "0" || res.outputs["passed"] != "2" {
		t.Errorf("exit %d, outputs %v: want 0 with two passed, one flaky\n%s", res.code, res.outputs, res.stdout)
	}
	if !strings.Contains(res.summary, "🎲 1 flaky") || !strings.Contains(res.summary, "🎲 **flaky** <sub>1/2 trials passed</sub>") {
		t.Errorf("step summary lacks the flaky case:\n%s", res.summary)
	}
	bad := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals-flaky/old.yaml", "trials": "0", "comment": "off"})
	if bad.code != 2 || !strings.Contains(bad.stdout, "input trials") {
		t.Errorf("trials 0: exit %d, want 2 naming the input\n%s", bad.code, bad.stdout)
	}
}
