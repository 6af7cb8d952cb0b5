package report

import (
	"math"
	"slices"

	"github.com/agentv/action/results"
	"github.com/agentv/action/stats"
)

// Bins is the number of score histogram bins.
const Bins = 5

// BinLabels name the histogram bins, lowest first.
var BinLabels = [Bins]string{"0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0"}

// ScoreStats describes the distribution of case scores.
type ScoreStats struct {
	Count                  int
	Mean, Median, Min, Max float64 // 0 when Count is 0
	StdDev                 float64 // sample standard deviation (n-1); valid only when HasStdDev
	HasStdDev              bool    // Count >= 2
	Histogram              [Bins]int
}

// caseStats computes score statistics over cases. Errored cases count as 0, as the gate counts
// them; scores outside [0,1] (and NaN) are clamped. Bins are [0,0.2) … [0.8,1.0]: an inner edge
// goes to the upper bin, so a case passing at 0.8 shows in the top one (AgentV 2.5 puts it in
// the lower; any five-bin split is compatible).
func caseStats(cases []*Case) ScoreStats {
	scores := make([]float64, 0, len(cases))
	for _, c := range cases {
		scores = append(scores, caseScore(c))
	}
	var s ScoreStats
	s.Count = len(scores)
	if s.Count == 0 {
		return s
	}
	sorted := slices.Clone(scores)
	slices.Sort(sorted)
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	if n := len(sorted); n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	var sum stats.Sum
	for _, v := range scores {
		sum.Add(v)
		s.Histogram[bin(v)]++
	}
	s.Mean = sum.Mean(s.Count)
	if s.Count >= 2 {
		var ss float64
		for _, v := range scores {
			d := v - s.Mean
			ss += d * d
		}
		s.StdDev = math.Sqrt(ss / float64(s.Count-1))
		s.HasStdDev = true
	}
	return s
}

// caseScore is the score a case counts with: 0 when errored, clamped to [0,1].
func caseScore(c *Case) float64 {
	if c.Verdict == results.VerdictError {
		return 0
	}
	return clampScore(c.Score)
}

func clampScore(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// bin returns the histogram bin of a score in [0,1]. The epsilon keeps 0.6 (stored as
// 0.59999…) in the bin a person expects.
func bin(v float64) int {
	b := int(math.Floor(v*Bins + 1e-9))
	return max(0, min(Bins-1, b))
}
