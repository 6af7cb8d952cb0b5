package report

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentv/action/results"
)

// Stats computes score statistics over records (caseStats), for the tests and the example.
func Stats(recs []*results.Record) ScoreStats { return caseStats(casesOf(recs)) }

func recsWithScores(scores ...float64) []*results.Record {
	var recs []*results.Record
	for _, s := range scores {
		recs = append(recs, &results.Record{Score: s, Verdict: results.VerdictPass})
	}
	return recs
}

func TestStats(t *testing.T) {
	t.Parallel()
	errored := &results.Record{Score: 0.9, Verdict: results.VerdictError, Error: "timeout"}
	tests := []struct {
		name string
		recs []*results.Record
		want ScoreStats
	}{
		{"empty", nil, ScoreStats{}},
		{"one", recsWithScores(0.5), ScoreStats{Count: 1, Mean: 0.5, Median: 0.5, Min: 0.5, Max: 0.5, Histogram: [Bins]int{0, 0, 1, 0, 0}}},
		{"two", recsWithScores(0.2, 0.4), ScoreStats{Count: 2, Mean: 0.3, Median: 0.3, Min: 0.2, Max: 0.4,
			StdDev: math.Sqrt(0.02), HasStdDev: true, Histogram: [Bins]int{0, 1, 1, 0, 0}}},
		{"odd median", recsWithScores(1, 0, 0.5), ScoreStats{Count: 3, Mean: 0.5, Median: 0.5, Min: 0, Max: 1,
			StdDev: 0.5, HasStdDev: true, Histogram: [Bins]int{1, 0, 1, 0, 1}}},
		{"bin edges go up", recsWithScores(0, 0.2, 0.4, 0.6, 0.8, 1), ScoreStats{Count: 6, Mean: 0.5, Median: 0.5, Min: 0, Max: 1,
			StdDev: math.Sqrt(0.14), HasStdDev: true, Histogram: [Bins]int{1, 1, 1, 1, 2}}},
		{"just below edges", recsWithScores(0.1999, 0.7999), ScoreStats{Count: 2, Mean: 0.4999, Median: 0.4999, Min: 0.1999, Max: 0.7999,
			StdDev: math.Sqrt(0.18), HasStdDev: true, Histogram: [Bins]int{1, 0, 0, 1, 0}}},
		{"errored counts zero", []*results.Record{errored, recsWithScores(1)[0]}, ScoreStats{Count: 2, Mean: 0.5, Median: 0.5, Min: 0, Max: 1,
			StdDev: math.Sqrt(0.5), HasStdDev: true, Histogram: [Bins]int{1, 0, 0, 0, 1}}},
		{"clamped and nan", recsWithScores(-1, 2, math.NaN()), ScoreStats{Count: 3, Mean: 1.0 / 3, Median: 0, Min: 0, Max: 1,
			StdDev: math.Sqrt(1.0 / 3), HasStdDev: true, Histogram: [Bins]int{2, 0, 0, 0, 1}}},
		{"nil records skipped", []*results.Record{nil, recsWithScores(1)[0]}, ScoreStats{Count: 1, Mean: 1, Median: 1, Min: 1, Max: 1, Histogram: [Bins]int{0, 0, 0, 0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Stats(tt.recs)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
		})
	}
}
