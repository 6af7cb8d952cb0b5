package evaluators

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentv/action/suite"
)

// TestV5RecordTypes: a 5.x entry records the type name the file wrote, 4.x entries their
// grader's type.
func TestV5RecordTypes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "types.eval.yaml")
	src := `prompts: ["{{ input }}"]
assert:
  - type: token-usage
    max_total: 10
tests:
  - id: t
    vars: {input: hi}
    assert:
      - Plain rubric one
      - type: script
        command: [python3, g.py]
      - type: contains
        value: hi
      - Plain rubric two
      - type: not-trajectory:tool-used
        value: search
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := suite.Load(file, suite.LoadOptions{Cwd: dir})
	if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
		t.Fatalf("load: %d cases, %v", len(s.Cases), s.Diagnostics)
	}
	want := []struct{ typ, record string }{
		{suite.TypeLLMJudge, "llm-rubric"}, {suite.TypeCodeJudge, "script"}, {"contains", ""},
		{"trajectory:tool-used", ""}, {"token_usage", "token-usage"}, // not-trajectory: its plain type, negated
	}
	got := s.Cases[0].Evaluators
	if len(got) != len(want) {
		t.Fatalf("%d evaluators, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Type != w.typ || got[i].RecordType != w.record {
			t.Errorf("evaluator %d: type %q record %q, want %q %q", i, got[i].Type, got[i].RecordType, w.typ, w.record)
		}
	}
}

// TestV5NegatedRubricKeepsItsText: a 5.x not-llm-rubric keeps its text as the criteria the judge
// is given, and is recorded under llm-rubric.
func TestV5NegatedRubricKeepsItsText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "neg.eval.yaml")
	src := "prompts: [\"{{ input }}\"]\ntests:\n  - id: t\n    vars: {input: hi}\n    assert:\n      - type: not-llm-rubric\n        value: Mentions Paris\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := suite.Load(file, suite.LoadOptions{Cwd: dir})
	if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 || len(s.Cases[0].Evaluators) != 1 {
		t.Fatalf("load: %d cases, %v", len(s.Cases), s.Diagnostics)
	}
	e := s.Cases[0].Evaluators[0]
	if e.Criteria != "Mentions Paris" || e.RecordType != "llm-rubric" {
		t.Errorf("criteria %q, record type %q; want the text and llm-rubric", e.Criteria, e.RecordType)
	}
}
