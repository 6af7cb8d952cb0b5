package gate

import "github.com/agentv/action/results"

// Tally counts verdicts and the mean score (errored cases count 0).
func Tally(recs []*results.Record) Counts {
	var c Counts
	var sum float64
	for _, r := range recs {
		c.Total++
		switch r.Verdict {
		case results.VerdictPass:
			c.Passed++
			sum += r.Score
		case results.VerdictFail:
			c.Failed++
			sum += r.Score
		default:
			c.Errors++
		}
	}
	if c.Total > 0 {
		c.MeanScore = sum / float64(c.Total)
	}
	return c
}
