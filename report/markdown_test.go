package report

import (
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

func TestPassRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		passed, total int
		want          string
	}{
		{1, 6, "16.7%"},
		{5, 6, "83.3%"},
		{2, 3, "66.7%"},
		{3, 7, "42.9%"},
		{0, 5, "0.0%"},
		{5, 5, "100.0%"},
		{1999, 2000, "99.9%"}, // 99.95 would round to 100% with a case failing
		{2999, 3000, "99.9%"},
		{1, 3000, "0.1%"}, // and 0.03 to 0% with a case passing
		{0, 0, "–"},
	} {
		if got := passRate(tc.passed, tc.total); got != tc.want {
			t.Errorf("passRate(%d, %d) = %q, want %q", tc.passed, tc.total, got, tc.want)
		}
	}
}

func TestWhyOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rec  results.Record
		want string
	}{
		{"error", results.Record{Error: "401 Unauthorized", Misses: []string{"Error: 401 Unauthorized"}, Verdict: results.VerdictError}, "401 Unauthorized"},
		{"evaluator error", results.Record{Verdict: results.VerdictFail, EvaluatorResults: []results.EvaluatorResult{{Name: "fmt", Error: "exit 1"}}}, "fmt: exit 1"},
		{"first miss", results.Record{Verdict: results.VerdictFail, Misses: []string{" ", "missing\n'deploy'"}}, "missing 'deploy'"},
		{"evaluator miss", results.Record{Verdict: results.VerdictFail, EvaluatorResults: []results.EvaluatorResult{
			{Name: "a", Verdict: "pass", Reasoning: "fine"}, {Name: "b", Verdict: "fail", Misses: []string{"too long"}}}}, "too long"},
		{"judge without verdict", results.Record{Verdict: results.VerdictFail, EvaluatorResults: []results.EvaluatorResult{
			{Name: "tone", Score: 0.9, Verdict: "pass", Reasoning: "polite"},
			{Name: "rubric", Score: 0, Verdict: "fail", Reasoning: "judge reply held no JSON verdict: I think\nit is fine"}}},
			"rubric: judge reply held no JSON verdict: I think it is fine"},
		{"case reasoning", results.Record{Verdict: results.VerdictFail, Reasoning: "too vague"}, "too vague"},
		{"nothing", results.Record{Verdict: results.VerdictFail, Score: 0.25}, "score 0.250; no miss or reasoning recorded"},
	} {
		if got := whyOf(&tc.rec); got != tc.want {
			t.Errorf("%s: whyOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A case whose target failed shows its error once, and no answer: the runner's "Error
// occurred: …" answer and "Error: …" miss repeat the error.
func TestErroredDetailsShowErrorOnce(t *testing.T) {
	t.Parallel()
	msg := `openai: 401 Unauthorized`
	rec := &results.Record{EvalID: "e", File: "evals/a.yaml", Line: 3, Error: msg, Verdict: results.VerdictError,
		Misses: []string{"Error: " + msg}, CandidateAnswer: "Error occurred: " + msg, Reasoning: msg,
		EvaluatorResults: []results.EvaluatorResult{{Name: "rubric", Type: "llm_judge", Error: msg, Misses: []string{"Error: " + msg}}}}
	run := &Run{Records: []*results.Record{rec}}
	got := detailsBlock(run, rec, results.VerdictError, "e", summarySurface.lim)
	if n := strings.Count(got, "401 Unauthorized"); n != 1 {
		t.Errorf("the error appears %d times:\n%s", n, got)
	}
	if strings.Contains(got, "Answer") {
		t.Errorf("an errored case shows an answer:\n%s", got)
	}
	// A real answer of an errored case (an evaluator crashed) still shows.
	rec2 := *rec
	rec2.CandidateAnswer = "The total is 42."
	if got := detailsBlock(run, &rec2, results.VerdictError, "e", summarySurface.lim); !strings.Contains(got, "Answer:\n> The total is 42.") {
		t.Errorf("the answer the case gave is missing:\n%s", got)
	}
}

func TestMdWrapped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"- list\nnext", "&#45; list<br>next"},
		{"1. one", "&#49;. one"},
		{"+ plus", "&#43; plus"},
		{"def f():\n\treturn 1\n    x", "def f():<br>&nbsp;&nbsp;&nbsp;&nbsp;return 1<br>&nbsp;&nbsp;&nbsp;&nbsp;x"},
		{"</pre><script>|@a #1", "&lt;/pre&gt;&lt;script&gt;&#124;@\u200da #\u200d1"},
		{"a\r\n\nb", "a<br><br>b"},
	} {
		if got := mdWrapped(tc.in); got != tc.want {
			t.Errorf("mdWrapped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestGroupRows(t *testing.T) {
	t.Parallel()
	mk := func(id, why string, vd results.Verdict, score float64) *Case {
		return &Case{EvalID: id, Why: why, Verdict: vd, Score: score}
	}
	fail := []*Case{
		mk("e1", "401", results.VerdictError, 0), mk("e2", "401", results.VerdictError, 0), mk("e3", "401", results.VerdictError, 0),
		mk("f1", "not 42", results.VerdictFail, 0.1), mk("f2", "other", results.VerdictFail, 0.2), mk("f3", "not 42", results.VerdictFail, 0.3),
		mk("f4", "not 42", results.VerdictFail, 0.4), mk("f5", "two", results.VerdictFail, 0.5), mk("f6", "two", results.VerdictFail, 0.6),
	}
	var got []string
	for _, r := range groupRows(fail, true) {
		var ids []string
		for _, c := range r {
			ids = append(ids, c.EvalID)
		}
		got = append(got, strings.Join(ids, "+"))
	}
	want := "e1+e2+e3 f1+f3+f4 f2 f5 f6"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
	if n := len(groupRows(fail, false)); n != len(fail) {
		t.Errorf("without a Why column %d rows, want one per case", n)
	}
}
