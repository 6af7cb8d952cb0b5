package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/agentv/action/suite"
)

// TrialsOutcome is what a trial strategy makes of a case's trials.
type TrialsOutcome struct {
	Score    float64
	Verdict  Verdict
	Flaky    bool           // some trials passed and some did not
	Interval *TrialInterval // confidence_interval only
}

// AggregateTrials combines a case's trials by strategy (suite.TrialsPassAtK when empty):
// pass_at_k takes the best trial's score and passes when a trial reached threshold; pass_all
// the weakest trial's, passing when that reaches threshold; mean the mean score,
// confidence_interval the lower bound of its 95% interval, passing when that reaches
// threshold.
//
// With anyPass (no suite threshold and no --threshold) mean and confidence_interval pass,
// like pass_at_k, when a trial reached threshold: AgentV 4.42.4 calls the test ok when any
// trial's status is (packages/core/src/evaluation/orchestrator.ts, runEvalCaseWithTrials,
// line 2329); only a threshold its summary is given compares the aggregate
// (apps/cli/src/commands/eval/statistics.ts, line 141). Whether a trial reached threshold is
// read from its score: a 4.x trial's verdict is at 0.8 whatever the threshold. Verdicts only
// make a case flaky. An errored trial scores 0; the case errors only when every trial did.
func AggregateTrials(strategy string, trials []Trial, threshold float64, anyPass bool) TrialsOutcome {
	var out TrialsOutcome
	scores := make([]float64, len(trials))
	passed, errored := 0, 0
	reached := false // a trial that did not error scored threshold or above
	for i, t := range trials {
		switch t.Verdict {
		case VerdictPass:
			passed++
		case VerdictFail:
		default:
			errored++
		}
		scores[i] = trialScore(t)
		if t.Verdict != VerdictError && t.Error == "" && scores[i] >= threshold {
			reached = true
		}
	}
	out.Flaky = passed > 0 && passed < len(trials)
	byThreshold := func(score float64) Verdict {
		if score >= threshold || anyPass && reached {
			return VerdictPass
		}
		return VerdictFail
	}
	switch strategy {
	case suite.TrialsMean:
		out.Score = mean(scores)
		out.Verdict = byThreshold(out.Score)
	case suite.TrialsPassAll:
		// The weakest trial's score, passing only when every trial reached threshold: the
		// way 5.x documents it (experiments.mdx:205-206), not its code's any-trial-ok
		// (orchestrator.ts:2564-2571; docs/agentv-5.md#deliberate-differences-from-531-next1).
		out.Score = 1
		for _, s := range scores {
			out.Score = min(out.Score, s)
		}
		out.Verdict = VerdictFail
		if out.Score >= threshold {
			out.Verdict = VerdictPass
		}
	case suite.TrialsConfidenceInterval:
		out.Interval = interval95(scores)
		out.Score = out.Interval.Low
		out.Verdict = byThreshold(out.Score)
	default:
		for _, s := range scores {
			out.Score = max(out.Score, s)
		}
		out.Verdict = VerdictFail
		if reached {
			out.Verdict = VerdictPass
		}
	}
	if errored == len(trials) {
		out.Verdict = VerdictError
	}
	return out
}

// BestTrial is the index of the trial whose details stand for the case: the highest score
// among the trials that did not error (the first of equals), else the first trial.
func BestTrial(trials []Trial) int {
	best := -1
	for i, t := range trials {
		if t.Verdict == VerdictError || t.Error != "" {
			continue
		}
		if best < 0 || t.Score > trials[best].Score {
			best = i
		}
	}
	return max(best, 0)
}

// RegradeTrials grades a record's trials again with threshold (the record's own when its
// eval file set one, or TrialPassAt) and aggregates them again: Verdict and Flaky change.
func RegradeTrials(r *Record, threshold float64) {
	if len(r.Trials) == 0 {
		return
	}
	if r.CaseThreshold != nil {
		threshold = *r.CaseThreshold
	}
	passAt := threshold
	if r.TrialPassAt != nil {
		passAt = *r.TrialPassAt
	}
	for i := range r.Trials {
		t := &r.Trials[i]
		if t.Verdict == VerdictError || t.Error != "" {
			t.Verdict = VerdictError
			continue
		}
		t.Verdict = VerdictFail
		if t.Score >= passAt {
			t.Verdict = VerdictPass
		}
	}
	// Records written before TrialPassAt held the aggregate to any threshold their file set.
	byAggregate := r.TrialsByAggregate || r.TrialPassAt == nil && r.CaseThreshold != nil
	out := AggregateTrials(r.TrialStrategy, r.Trials, threshold, !byAggregate)
	r.Verdict, r.Flaky = out.Verdict, out.Flaky
	if out.Verdict == VerdictError && r.Error == "" {
		r.Error = r.Trials[len(r.Trials)-1].Error
	}
}

// TrialsPassed counts the trials that passed.
func (r *Record) TrialsPassed() int {
	n := 0
	for _, t := range r.Trials {
		if t.Verdict == VerdictPass {
			n++
		}
	}
	return n
}

// trialScore is the score a trial counts with: 0 when errored, else clamped to 0–1.
func trialScore(t Trial) float64 {
	if t.Verdict != VerdictPass && t.Verdict != VerdictFail || math.IsNaN(t.Score) {
		return 0
	}
	return min(max(t.Score, 0), 1)
}

// mean is the mean of xs to 12 decimals: the sum's rounding error must not put a mean that
// is exactly the threshold (1, 1 and 0.4 against 0.8) below it.
func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return math.Round(sum/float64(len(xs))*1e12) / 1e12
}

// interval95 is the 95% confidence interval of the mean of xs: mean ± t·s/√n with Student's
// t for n-1 degrees of freedom, clamped to 0–1.
func interval95(xs []float64) *TrialInterval {
	m := mean(xs)
	n := len(xs)
	if n < 2 {
		c := min(max(m, 0), 1)
		return &TrialInterval{Low: c, High: c, Mean: m}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / float64(n-1))
	margin := tCritical95(n-1) * sd / math.Sqrt(float64(n))
	return &TrialInterval{Low: max(m-margin, 0), High: min(m+margin, 1), Mean: m, StdDev: sd}
}

// t95 holds the two-tailed 95% critical values of Student's t for 1 to 29 degrees of
// freedom, to three decimals (the precision AgentV 4.x uses, so scores match it).
var t95 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
	2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045}

func tCritical95(df int) float64 {
	if df >= 30 {
		return 1.96
	}
	return t95[max(df, 1)-1]
}

// TrialList decodes a JSON array of trials keeping only the first suite.MaxTrials, as many
// as a run records: a results file or baseline from elsewhere may hold millions, which would
// cost their memory in every reader. Total counts every element; Items is nil for null.
type TrialList[T any] struct {
	Items []T
	Total int
}

// UnmarshalJSON decodes the kept elements one by one and skips the others.
func (l *TrialList[T]) UnmarshalJSON(b []byte) error {
	l.Items, l.Total = nil, 0
	dec := json.NewDecoder(bytes.NewReader(b))
	switch tok, _ := dec.Token(); tok {
	case nil:
		return nil
	case json.Delim('['):
	default:
		return fmt.Errorf("trials: want a list")
	}
	var skip json.RawMessage
	for dec.More() {
		l.Total++
		if len(l.Items) == suite.MaxTrials {
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("trial %d: %w", l.Total, err)
		}
		l.Items = append(l.Items, v)
	}
	return nil
}
