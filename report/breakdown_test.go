package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// TestBreakdownTables checks the dataset and evaluator tables around their limits: none for
// one group, the weakest first, the evaluators folded past a few, the rows capped with the
// rest counted.
func TestBreakdownTables(t *testing.T) {
	t.Parallel()
	cases := func(n int) []*Case {
		var recs []*Case
		for i := range n {
			recs = append(recs, &Case{
				EvalID: fmt.Sprint(i), Dataset: fmt.Sprintf("d%02d", i), Score: float64(i) / 100, Verdict: results.VerdictPass,
				Evaluators: []EvaluatorScore{{Name: fmt.Sprintf("e%02d", i), Score: float64(i) / 100, Errored: i == 0}},
			})
		}
		return recs
	}
	tests := []struct {
		name    string
		table   func([]*Case) string
		n       int
		want    []string
		notWant []string
	}{
		{"one dataset", datasetTable, 1, []string{""}, []string{"|"}},
		{"two datasets", datasetTable, 2, []string{
			"| Dataset | Cases | Pass rate | Errored | Mean score |\n|---|--:|--:|--:|--:|\n| d00 | 1 | 100.0% | 0 | 0.000 |\n| d01 | 1 | 100.0% | 0 | 0.010 |\n\n",
		}, []string{"more datasets"}},
		{"many datasets", datasetTable, 23, []string{"| d19 |", "… and 3 more datasets.\n\n"}, []string{"| d20 |"}},
		{"one evaluator", evaluatorTable, 1, []string{""}, []string{"|"}},
		{"few evaluators", evaluatorTable, 5, []string{"| Evaluator | Cases | Errored | Mean score |\n", "| e00 | 1 | 1 | 0.000 |\n"}, []string{"<details>"}},
		{"many evaluators fold", evaluatorTable, 21, []string{
			"<details>\n<summary>Mean score of each of 21 evaluators (lowest: e00 0.000)</summary>\n\n| Evaluator |", "… and 1 more evaluators.\n\n</details>\n\n",
		}, []string{"| e20 |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.table(cases(tt.n))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("table lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("table has %q:\n%s", w, got)
				}
			}
		})
	}
}
