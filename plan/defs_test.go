package plan

import (
	"strings"
	"testing"

	"github.com/agentv/action/config"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// TestSuiteDefinedTargets: a suite that defines its targets (a promptfoo config's providers)
// runs on them without a targets file, its judges are found among them, and a definition
// that cannot be a target is the job's error.
func TestSuiteDefinedTargets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // no targets.yaml anywhere up to the repository root
	p := New(Options{Settings: config.Settings{Timeout: 10e9, Cwd: dir, Environ: []string{"OPENAI_API_KEY=sk-plan-defs-0123456789"}},
		Redactor: &redact.Redactor{}})
	s := &suite.Suite{Path: "promptfooconfig.yaml", Abs: dir + "/promptfooconfig.yaml", Dir: dir, RepoRoot: dir,
		Targets: []string{"echo", "openai:m", "bad"}, OwnTargets: true,
		TargetDefs: []suite.TargetDef{
			{Name: "echo", Provider: "exec:echo hi", Overrides: true},
			{Name: "openai:m", Provider: "openai:chat:m", Overrides: true},
			{Name: "bad", Provider: "azure:chat:d", Config: []byte(`{"apiBaseUrl": "http://127.0.0.1:1"}`), Overrides: true},
			{Name: "grader openai:g", Provider: "openai:chat:g", Overrides: true},
		}}
	c := &suite.Case{Suite: s, ID: "x", Evaluators: []*suite.EvaluatorSpec{{Name: "r", Type: suite.TypeLLMJudge, Target: "grader openai:g"}}}
	var got []string
	for _, j := range p.Jobs(s, c, nil) {
		if j.Err != nil {
			got = append(got, "error")
			continue
		}
		got = append(got, j.Provider.Target().Name)
		judge, err := p.Judge(j.Provider.Target(), "grader openai:g")
		if err != nil || judge.Target().Name != "grader openai:g" {
			t.Errorf("judge of %s: %v", j.Provider.Target().Name, err)
		}
	}
	if g := strings.Join(got, " "); g != "echo openai:m error" {
		t.Errorf("jobs on %q, want %q", g, "echo openai:m error")
	}
}
