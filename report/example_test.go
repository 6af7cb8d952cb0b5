package report_test

import (
	"fmt"
	"os"

	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// Progress prints one line per finished case when the output is not a terminal.
func ExampleProgress() {
	rec := &results.Record{EvalID: "case-3", Dataset: "smoke", Score: 0.95, Verdict: results.VerdictPass, DurationMS: 1200}
	report.Progress(os.Stdout, rec, 12, 40, false)
	// Output: [12/40] PASS 0.950 smoke/case-3 (1.2s)
}

// Stats counts errored cases as 0, as the gate does.
func ExampleStats() {
	s := report.Stats([]*results.Record{
		{Score: 0.9, Verdict: results.VerdictPass},
		{Score: 0.5, Verdict: results.VerdictFail},
		{Score: 0.7, Verdict: results.VerdictError, Error: "judge timed out"},
	})
	fmt.Printf("n=%d mean=%.3f median=%.3f min=%.3f max=%.3f sd=%.3f\n", s.Count, s.Mean, s.Median, s.Min, s.Max, s.StdDev)
	for i, n := range s.Histogram {
		fmt.Printf("%s %d\n", report.BinLabels[i], n)
	}
	// Output:
	// n=3 mean=0.467 median=0.500 min=0.000 max=0.900 sd=0.451
	// 0.0-0.2 1
	// 0.2-0.4 0
	// 0.4-0.6 1
	// 0.6-0.8 0
	// 0.8-1.0 1
}
