package results

import (
	"math"
	"testing"

	"github.com/agentv/action/suite"
)

// trials makes trials of scores graded at 0.8; a negative score is an errored trial.
func trials(scores ...float64) []Trial {
	out := make([]Trial, len(scores))
	for i, s := range scores {
		t := Trial{Trial: i + 1, Score: s, Verdict: VerdictFail}
		switch {
		case s < 0:
			t.Score, t.Verdict, t.Error = 0, VerdictError, "target timed out"
		case s >= 0.8:
			t.Verdict = VerdictPass
		}
		out[i] = t
	}
	return out
}

// TestAggregateTrials checks each strategy's score, verdict and flaky flag. The
// confidence-interval cases were checked against AgentV 4.42.4's arithmetic: scores
// 0.5 1 0 1 0.5 1 give a lower bound of 0.23817, and 1 1 0.5 1 1 0.5 give 0.56233.
func TestAggregateTrials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		strategy string
		trials   []Trial
		score    float64
		verdict  Verdict
		flaky    bool
		low      float64 // interval lower bound, confidence_interval only
		high     float64
		anyPass  bool    // the eval file sets no threshold (AgentV 4.42.4's rule)
		at       float64 // the case threshold when not 0.8 (the trials' verdicts stay at 0.8, as a 4.x file's)
	}{
		{name: "pass_at_k any pass", strategy: suite.TrialsPassAtK, trials: trials(0.5, 0.9), score: 0.9, verdict: VerdictPass, flaky: true},
		{name: "pass_at_k default strategy", strategy: "", trials: trials(0.5, 0.9), score: 0.9, verdict: VerdictPass, flaky: true},
		{name: "pass_at_k all fail", strategy: suite.TrialsPassAtK, trials: trials(0.5, 0.7, 0.2), score: 0.7, verdict: VerdictFail},
		{name: "pass_at_k all pass", strategy: suite.TrialsPassAtK, trials: trials(1, 1), score: 1, verdict: VerdictPass},
		{name: "pass_at_k errors and a pass", strategy: suite.TrialsPassAtK, trials: trials(-1, 0.8), score: 0.8, verdict: VerdictPass, flaky: true},
		{name: "pass_at_k error and a fail", strategy: suite.TrialsPassAtK, trials: trials(-1, 0.3), score: 0.3, verdict: VerdictFail},
		{name: "pass_at_k all errored", strategy: suite.TrialsPassAtK, trials: trials(-1, -1), score: 0, verdict: VerdictError},
		{name: "mean below threshold though one passes", strategy: suite.TrialsMean, trials: trials(0.5, 1, 0, 1, 0.5, 1), score: 4.0 / 6, verdict: VerdictFail, flaky: true},
		{name: "mean passes", strategy: suite.TrialsMean, trials: trials(1, 1, 0.5, 1, 1, 0.5), score: 5.0 / 6, verdict: VerdictPass, flaky: true},
		{name: "mean exactly at the threshold", strategy: suite.TrialsMean, trials: trials(1, 1, 0.4), score: 0.8, verdict: VerdictPass, flaky: true},
		{name: "mean errored trial counts 0", strategy: suite.TrialsMean, trials: trials(1, -1), score: 0.5, verdict: VerdictFail, flaky: true},
		{name: "mean all errored", strategy: suite.TrialsMean, trials: trials(-1), score: 0, verdict: VerdictError},
		// Without a threshold in the eval file, 4.42.4 passes a case any of whose trials passed.
		{name: "mean below threshold, one passes, no file threshold", strategy: suite.TrialsMean, trials: trials(1, 0, 0), score: 1.0 / 3, verdict: VerdictPass, flaky: true, anyPass: true},
		{name: "mean none passes, no file threshold", strategy: suite.TrialsMean, trials: trials(0.7, 0.7), score: 0.7, verdict: VerdictFail, anyPass: true},
		{name: "mean all errored, no file threshold", strategy: suite.TrialsMean, trials: trials(-1, -1), score: 0, verdict: VerdictError, anyPass: true},
		{name: "interval one passes, no file threshold", strategy: suite.TrialsConfidenceInterval, trials: trials(0.5, 1, 0, 1, 0.5, 1),
			score: 0.23817, verdict: VerdictPass, flaky: true, low: 0.23817, high: 1, anyPass: true},
		{name: "pass_at_k all fail, no file threshold", strategy: suite.TrialsPassAtK, trials: trials(0.5, 0.7), score: 0.7, verdict: VerdictFail, anyPass: true},
		// A 4.x trial's verdict is at 0.8; the case holds the scores to its own threshold.
		{name: "pass_at_k a trial reached a low threshold", strategy: suite.TrialsPassAtK, trials: trials(0.6), at: 0.5, score: 0.6, verdict: VerdictPass, anyPass: true},
		{name: "pass_at_k a passed trial below a high threshold", strategy: suite.TrialsPassAtK, trials: trials(0.85), at: 0.9, score: 0.85, verdict: VerdictFail, anyPass: true},
		{name: "mean a trial reached a low threshold", strategy: suite.TrialsMean, trials: trials(0.6, 0, 0), at: 0.5, score: 0.2, verdict: VerdictPass, anyPass: true},
		{name: "mean passed trials below a high threshold", strategy: suite.TrialsMean, trials: trials(0.85, 0.85), at: 0.9, score: 0.85, verdict: VerdictFail, anyPass: true},
		{name: "mean held to a low threshold", strategy: suite.TrialsMean, trials: trials(0.6, 0, 0), at: 0.5, score: 0.2, verdict: VerdictFail},
		{name: "interval flip", strategy: suite.TrialsConfidenceInterval, trials: trials(0.5, 1, 0, 1, 0.5, 1),
			score: 0.23817, verdict: VerdictFail, flaky: true, low: 0.23817, high: 1},
		{name: "interval steady", strategy: suite.TrialsConfidenceInterval, trials: trials(1, 1, 0.5, 1, 1, 0.5),
			score: 0.56233, verdict: VerdictFail, flaky: true, low: 0.56233, high: 1},
		{name: "interval identical scores", strategy: suite.TrialsConfidenceInterval, trials: trials(0.9, 0.9, 0.9),
			score: 0.9, verdict: VerdictPass, low: 0.9, high: 0.9},
		{name: "interval one trial", strategy: suite.TrialsConfidenceInterval, trials: trials(0.6),
			score: 0.6, verdict: VerdictFail, low: 0.6, high: 0.6},
		{name: "interval clamped at 0", strategy: suite.TrialsConfidenceInterval, trials: trials(0, 1),
			score: 0, verdict: VerdictFail, flaky: true, low: 0, high: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			at := 0.8
			if tt.at != 0 {
				at = tt.at
			}
			got := AggregateTrials(tt.strategy, tt.trials, at, tt.anyPass)
			if math.Abs(got.Score-tt.score) > 5e-6 || got.Verdict != tt.verdict || got.Flaky != tt.flaky {
				t.Errorf("got score %.6f verdict %s flaky %v, want %.6f %s %v", got.Score, got.Verdict, got.Flaky, tt.score, tt.verdict, tt.flaky)
			}
			if (got.Interval != nil) != (tt.strategy == suite.TrialsConfidenceInterval) {
				t.Fatalf("interval %+v for strategy %q", got.Interval, tt.strategy)
			}
			if got.Interval != nil && (math.Abs(got.Interval.Low-tt.low) > 5e-6 || math.Abs(got.Interval.High-tt.high) > 5e-6) {
				t.Errorf("interval %+v, want low %.5f high %.5f", *got.Interval, tt.low, tt.high)
			}
		})
	}
}

// TestBestTrial checks which trial's details stand for the case.
func TestBestTrial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		trials []Trial
		want   int
	}{
		{"highest", trials(0.2, 0.9, 0.5), 1},
		{"first of equals", trials(0.9, 0.9), 0},
		{"skips errored", trials(-1, 0), 1},
		{"all errored", trials(-1, -1), 0},
	}
	for _, tt := range tests {
		if got := BestTrial(tt.trials); got != tt.want {
			t.Errorf("%s: best %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestRegradeTrials checks that a report with another threshold re-grades each trial and the
// aggregate: at 0.5 the pass_at_k case's failing trial passes and it is no longer flaky.
func TestRegradeTrials(t *testing.T) {
	t.Parallel()
	r := &Record{Score: 0.9, Verdict: VerdictPass, Trials: trials(0.6, 0.9), Flaky: true, TrialStrategy: suite.TrialsPassAtK}
	RegradeTrials(r, 0.5)
	if r.Verdict != VerdictPass || r.Flaky || r.TrialsPassed() != 2 {
		t.Errorf("at 0.5: verdict %s flaky %v passed %d, want pass, not flaky, 2", r.Verdict, r.Flaky, r.TrialsPassed())
	}
	RegradeTrials(r, 0.95)
	if r.Verdict != VerdictFail || r.Flaky || r.TrialsPassed() != 0 {
		t.Errorf("at 0.95: verdict %s flaky %v passed %d, want fail, not flaky, 0", r.Verdict, r.Flaky, r.TrialsPassed())
	}
	m := &Record{Verdict: VerdictFail, Trials: trials(0.6, 0.9), TrialStrategy: suite.TrialsMean, Score: 0.75}
	RegradeTrials(m, 0.7)
	if m.Verdict != VerdictPass || !m.Flaky {
		t.Errorf("mean at 0.7: verdict %s flaky %v, want pass and flaky", m.Verdict, m.Flaky)
	}
	// A mean of 0.55 with one passing trial: passed without a threshold in its file (as in
	// AgentV 4.42.4), failed when its file set one, whatever the report's threshold.
	free := &Record{Trials: trials(0.2, 0.9), TrialStrategy: suite.TrialsMean, Score: 0.55}
	RegradeTrials(free, 0.8)
	own := 0.8
	set := &Record{Trials: trials(0.2, 0.9), TrialStrategy: suite.TrialsMean, Score: 0.55, CaseThreshold: &own}
	RegradeTrials(set, 0.5)
	if free.Verdict != VerdictPass || set.Verdict != VerdictFail {
		t.Errorf("mean 0.55 with one pass: verdict %s without a file threshold (want pass), %s with the file's 0.8 (want fail)", free.Verdict, set.Verdict)
	}
	// A 4.x record's trials keep their verdicts at 0.8, and its case passes on a trial that
	// reached the threshold unless the aggregate is held to it.
	at := suite.TrialPassAt4
	v4 := &Record{Trials: trials(0.6, 0, 0), TrialStrategy: suite.TrialsMean, Score: 0.2, TrialPassAt: &at}
	RegradeTrials(v4, 0.5)
	if v4.Verdict != VerdictPass || v4.TrialsPassed() != 0 || v4.Flaky {
		t.Errorf("4.x mean at 0.5: verdict %s, %d trials passed, flaky %v; want pass, 0, not flaky", v4.Verdict, v4.TrialsPassed(), v4.Flaky)
	}
	v4own := 0.5
	v4.CaseThreshold = &v4own
	RegradeTrials(v4, 0.8)
	if v4.Verdict != VerdictPass {
		t.Errorf("4.x mean with the test's own 0.5: verdict %s, want pass (the test's own threshold is not held to the mean)", v4.Verdict)
	}
	v4.TrialsByAggregate = true
	RegradeTrials(v4, 0.8)
	if v4.Verdict != VerdictFail {
		t.Errorf("4.x mean held to the aggregate: verdict %s, want fail", v4.Verdict)
	}
	e := &Record{Verdict: VerdictError, Trials: trials(-1, -1), Error: "target timed out"}
	RegradeTrials(e, 0)
	if e.Verdict != VerdictError {
		t.Errorf("all errored: verdict %s, want error", e.Verdict)
	}
}
