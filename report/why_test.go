package report

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestElideWhy checks that a Why cut for keeping (cutWhy) and again for a surface (elide)
// keeps its start and end and counts every character left out, once.
func TestElideWhy(t *testing.T) {
	t.Parallel()
	const reply = "; reply: Looks fine to me, score high"
	short := `evaluator "llm_judge" could not score: the judge's reply held no valid verdict after 3 attempts and a repair request: not valid JSON: invalid character 'L' looking for beginning of value` + reply
	long := "code-grader failed: " + strings.Repeat("traceback line ", 150) + "FileNotFoundError: /work/evals/graders/data/expected_answers.json"
	tests := []struct {
		name, why string
		limit     int
		end       string // what the shown text ends with
	}{
		{"a reply at the end of an error", short, 200, reply},
		{"a path at the end of a long error", long, 200, "/data/expected_answers.json"},
		{"a path at the end, console width", long, whyRunes, "/data/expected_answers.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCase(&results.Record{EvalID: "a", Verdict: results.VerdictError, Error: tt.why})
			got := elide(c.Why, tt.limit)
			if !strings.HasSuffix(got, tt.end) || !strings.HasPrefix(got, tt.why[:20]) || strings.Contains(got, "\x00") {
				t.Fatalf("elide(Why, %d) = %q", tt.limit, got)
			}
			head, rest, cut := strings.Cut(got, " … [")
			if !cut {
				if got != tt.why {
					t.Errorf("uncut Why %q differs from %q", got, tt.why)
				}
				return
			}
			note, tail, _ := strings.Cut(rest, " left out] … ")
			n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(note, " characters"), " character"), ",", ""))
			shown := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
			if err != nil || shown+n != utf8.RuneCountInString(tt.why) || shown > max(tt.limit, 200) {
				t.Errorf("%d shown + %q left out, of %d characters (limit %d): %q", shown, note, utf8.RuneCountInString(tt.why), tt.limit, got)
			}
		})
	}
}
