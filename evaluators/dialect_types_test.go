package evaluators

import (
	"strings"
	"testing"

	"github.com/agentv/action/suite"
)

// TestV5TypesOnlyInV5Files: the types new in AgentV 5.x are unknown in 2.5 and 4.x files (as
// to 2.5 and 4.42.4), are left out of those files' list of valid types and are never
// suggested for their misspellings; a 5.x file loads them.
func TestV5TypesOnlyInV5Files(t *testing.T) {
	t.Parallel()
	v25 := func(typ string) string {
		return "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: " + typ + ", value: x}\n"
	}
	v4 := func(typ string) string {
		return "tests:\n  - id: c\n    input: hi\n    assertions:\n      - {type: " + typ + ", value: x}\n"
	}
	tests := []struct {
		name, text string
		want       string // the start of the only error, "" for none
		notIn      string // text the error must not hold
	}{
		{"2.5 javascript", v25("javascript"), `eval.yaml:5:16: unknown evaluator type "javascript" (valid: `, "javascript"},
		{"2.5 assert-set", v25("assert-set"), `eval.yaml:5:16: unknown evaluator type "assert-set" (valid: `, "assert-set"},
		{"2.5 webhook misspelled", v25("webhok"), `eval.yaml:5:16: unknown evaluator type "webhok" (valid: `, "webhook"},
		{"4.x python", v4("python"), `eval.yaml:5:16: unknown evaluator type "python": not a built-in type, and no custom assertion script python.ts`, ""},
		{"4.x similar", v4("similar"), `eval.yaml:5:16: unknown evaluator type "similar": not a built-in type`, ""},
		{"4.x skill-used misspelled", v4("skill-usd"), `eval.yaml:5:16: unknown evaluator type "skill-usd": not a built-in type`, `"skill-used"`},
		{"4.x trajectory", v4("trajectory:tool-used"), `eval.yaml:5:16: unknown evaluator type "trajectory:tool-used": not a built-in type`, ""},
		{"4.x goal-success", v4("trajectory:goal-success"), `eval.yaml:5:16: unknown evaluator type "trajectory:goal-success": not a built-in type`, ""},
		{"2.5 not-trajectory step-count", v25("not-trajectory:step-count"), `eval.yaml:5:16: unknown evaluator type "not-trajectory:step-count" (valid: `, "trajectory:"},
		{"4.x built-in still known", v4("contains"), "", ""},
		{"5.x python", "prompts: [hi]\ntests:\n  - id: c\n    assert:\n      - {type: python, value: 'True'}\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := suite.Load(writeFile(t, dir, "eval.yaml", tt.text), suite.LoadOptions{Cwd: dir})
			var errs []string
			for _, d := range s.Diagnostics {
				if d.IsError() {
					errs = append(errs, d.Error())
				}
			}
			if tt.want == "" {
				if len(errs) != 0 || len(s.Cases) != 1 {
					t.Fatalf("errors %q, %d cases; want none and 1 case", errs, len(s.Cases))
				}
				return
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) || len(s.Cases) != 0 {
				t.Fatalf("errors %q, %d cases; want one starting %q", errs, len(s.Cases), tt.want)
			}
			if tt.notIn != "" && strings.Contains(strings.TrimPrefix(errs[0], tt.want), tt.notIn) {
				t.Errorf("error %q names %q", errs[0], tt.notIn)
			}
		})
	}
}
