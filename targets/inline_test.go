package targets

import (
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// TestInline builds the targets an eval file defines as 5.x targets file entries: config
// moved up, paths from the eval file's folder, problems at the definition's line.
func TestInline(t *testing.T) {
	t.Parallel()
	s := &suite.Suite{Path: "evals/e.eval.yaml", Abs: "/repo/evals/e.eval.yaml", TargetDefs: []suite.TargetDef{
		{Name: "echo", Pos: suite.Position{Line: 4, Col: 5}, Settings: []byte(`{"id": "echo", "provider": "cli", "config": {"command": "echo {PROMPT}", "timeout_seconds": 5}}`)},
		{Name: "old", Pos: suite.Position{Line: 9, Col: 5}, Settings: []byte(`{"id": "old", "provider": "mock", "judge_target": "x"}`)},
	}}
	f := Inline(s, mapEnv(nil), &redact.Redactor{})
	if len(f.Targets) != 2 || !f.Has("echo") || f.Has("nope") {
		t.Fatalf("targets %v, diagnostics:\n%s", f.Targets, diagLines(f.Diagnostics))
	}
	echo, err := f.Find("echo")
	if err != nil {
		t.Fatal(err)
	}
	if echo.Kind != KindCLI || echo.Dir != "/repo/evals" || echo.File != "evals/e.eval.yaml" || !echo.EnvSyntax5 || echo.Settings["command"] == nil {
		t.Errorf("echo: %+v", echo)
	}
	if _, err := f.Find("old"); err == nil || !strings.Contains(err.Error(), "grader_target") {
		t.Errorf("old: %v", err)
	}
	if got := diagLines(f.Diagnostics); !strings.Contains(got, "evals/e.eval.yaml:9:5") {
		t.Errorf("diagnostics:\n%s", got)
	}
}
