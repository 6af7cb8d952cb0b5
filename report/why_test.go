package report

import (
	"testing"

	"github.com/agentv/action/results"
)

// TestMissReason checks which misses come with a judge's reason, and which reason.
func TestMissReason(t *testing.T) {
	t.Parallel()
	freeform := results.EvaluatorResult{Name: "l", Type: "llm_judge", Misses: []string{"Mentions tests", "Is short"},
		Reasoning:  "Mentions tests: never; Is short: 40 lines",
		Assertions: []results.Assertion{{Text: "Mentions tests", Evidence: "never"}, {Text: "Is short"}, {Text: "Rhymes", Passed: true, Evidence: "yes"}}}
	judge25 := results.EvaluatorResult{Name: "j", Type: "llm_judge", Misses: []string{"Mentions tests"}, Reasoning: "About roses\nonly."}
	tests := []struct {
		name string
		ers  []results.EvaluatorResult
		miss string
		want string
	}{
		{"4.x evidence of the failed criterion", []results.EvaluatorResult{freeform}, "Mentions tests", "never"},
		{"4.x criterion without evidence", []results.EvaluatorResult{freeform}, "Is short", ""},
		{"2.x judge reasoning, on one line", []results.EvaluatorResult{judge25}, "Mentions tests", "About roses only."},
		{"composite member", []results.EvaluatorResult{{Name: "comp", Type: "composite", Misses: []string{"[l] Mentions tests"},
			EvaluatorResults: []results.EvaluatorResult{freeform}}}, "[l] Mentions tests", "never"},
		{"2.x rubric check that says it already", []results.EvaluatorResult{{Name: "r", Type: "rubric", Misses: []string{"c2: no CI, says nothing"},
			Reasoning: "no CI"}}, "c2: no CI, says nothing", ""},
		{"deterministic assertion", []results.EvaluatorResult{{Name: "c", Type: "contains", Misses: []string{`Output does not contain "x"`},
			Reasoning: `Output does not contain "x"`}}, `Output does not contain "x"`, ""},
		{"code judge", []results.EvaluatorResult{{Name: "py", Type: "code_judge", Misses: []string{"too long"}, Reasoning: "counted 90 words"}}, "too long", ""},
		{"evaluator that could not score", []results.EvaluatorResult{{Name: "j", Type: "llm_judge", Misses: []string{"evaluator could not score"},
			Reasoning: "timeout", Error: "timeout"}}, "evaluator could not score", ""},
		{"miss of no evaluator", []results.EvaluatorResult{judge25}, "other", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := missReason(tt.ers, tt.miss); got != tt.want {
				t.Errorf("missReason(%q) = %q, want %q", tt.miss, got, tt.want)
			}
		})
	}
}
