package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// TestJudgeResolution checks the order a judge target is chosen in: the evaluator's own
// target, else the --judge-target override, else the target's judge_target, else the target.
func TestJudgeResolution(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "targets.yaml")
	yaml := `targets:
  - name: agent
    provider: mock
    judge_target: configured
  - name: plain
    provider: mock
  - name: configured
    provider: mock
  - name: override
    provider: mock
  - name: own
    provider: mock
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target, flag, evaluator, want string
	}{
		{"target's judge_target", "agent", "", "", "configured"},
		{"target itself", "plain", "", "", "plain"},
		{"override beats judge_target", "agent", "override", "", "override"},
		{"override without judge_target", "plain", "override", "", "override"},
		{"evaluator's target beats override", "agent", "override", "own", "own"},
		{"evaluator's target beats judge_target", "agent", "", "own", "own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			red := &redact.Redactor{}
			tf := targets.Load(path, targets.NewEnv(nil, "", ""), red)
			if len(tf.Diagnostics) > 0 {
				t.Fatalf("targets file: %v", tf.Diagnostics)
			}
			p := New(Options{JudgeTarget: tt.flag, Timeout: 10e9, Redactor: red})
			p.files[tf.Abs] = tf
			tg, err := tf.Find(tt.target)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := p.Judge(tg, tt.evaluator)
			if err != nil {
				t.Fatal(err)
			}
			if got := pr.Target().Name; got != tt.want {
				t.Errorf("judge = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestCaseWarnings checks that a case's warnings reach its record with display paths and
// without the case id (the record names the case), and that errors and warnings of no case
// stay out.
func TestCaseWarnings(t *testing.T) {
	t.Parallel()
	ds := []suite.Diagnostic{
		{File: "/ws/evals/a.yaml", Line: 4, Kind: "template", CaseID: "one", Message: "unknown placeholder"},
		{File: "/ws/evals/a.yaml", Line: 9, Severity: suite.SeverityError, CaseID: "one", Message: "bad"},
		{File: "/ws/evals/a.yaml", Line: 1, Message: "file-wide"},
	}
	got := CaseWarnings(ds, func(p string) string { return strings.TrimPrefix(p, "/ws/") })
	want := map[string][]suite.Diagnostic{
		"one": {{File: "evals/a.yaml", Line: 4, Kind: "template", Message: "unknown placeholder"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CaseWarnings (-want +got):\n%s", diff)
	}
}
