package gate

import (
	"iter"

	"github.com/agentv/action/results"
	"github.com/agentv/action/stats"
)

// Tally counts verdicts, the mean score (errored cases count 0) and the thresholds eval
// files set.
func Tally(recs []*results.Record) Counts {
	c := TallySeq(func(yield func(results.Verdict, float64) bool) {
		for _, r := range recs {
			if !yield(r.Verdict, r.Score) {
				return
			}
		}
	})
	for _, r := range recs {
		if r.CaseThreshold != nil {
			c.AddOwnThreshold(*r.CaseThreshold)
		}
	}
	return c
}

// TallySeq is Tally over (verdict, score) pairs, for callers that keep less than records.
func TallySeq(cases iter.Seq2[results.Verdict, float64]) Counts {
	var c Counts
	var sum stats.Sum // the same mean whatever order the cases finished in
	for v, score := range cases {
		c.Total++
		switch v {
		case results.VerdictPass:
			c.Passed++
			sum.Add(score)
		case results.VerdictFail:
			c.Failed++
			sum.Add(score)
		default:
			c.Errors++
		}
	}
	if c.Total > 0 {
		c.MeanScore = sum.Mean(c.Total)
	}
	return c
}
