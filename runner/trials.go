package runner

import (
	"context"
	"slices"
	"time"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// TrialsFor is the trials a case of a file with fileTrials runs: override's Count (--trials)
// and Strategy (--trials-strategy) win when set, the file's cost limit stays; nil: once.
func TrialsFor(fileTrials *suite.Trials, override suite.Trials) *suite.Trials {
	var t suite.Trials
	if fileTrials != nil {
		t = *fileTrials
	}
	if override.Count > 0 {
		t.Count = override.Count
	}
	if override.Strategy != "" {
		t.Strategy = override.Strategy
	}
	if t.Count <= 1 {
		return nil
	}
	if t.Strategy == "" {
		t.Strategy = suite.TrialsPassAtK
	}
	return &t
}

func (r *Runner) trialsOf(c *suite.Case) *suite.Trials {
	var file *suite.Trials
	switch {
	case c != nil && c.Trials != nil: // a 5.x test's run.repeat
		file = c.Trials
	case c != nil && c.Suite != nil:
		file = c.Suite.Trials
	}
	return TrialsFor(file, r.opts.Trials)
}

// runTrials runs a case tr.Count times (pre, a batch's answer, serves the first) and returns
// the standing trial's record with the strategy's score and verdict and every trial listed.
// Trials stop early as tr says (stopsAfter), once they cost tr.CostUSD, or on cancellation.
//
// A trial of a file with a TrialPassAt (AgentV 4.x: 0.8, as in 4.42.4) passes at that score
// whatever the case threshold: that verdict is the one pass_at_k stops at and the trials
// count, while the case's verdict holds the trials' scores to its threshold
// (results.AggregateTrials).
func (r *Runner) runTrials(ctx context.Context, p providers.Provider, j *plan.Job, pre *providers.Response, tr *suite.Trials) *results.Record {
	start := time.Now()
	threshold, _, _ := r.thresholdOf(j.Case) // before the trials: a finished run lets its case go
	var passAt float64                       // 0: a trial passes at the case threshold
	if j.Case != nil && j.Case.Suite != nil {
		passAt = j.Case.Suite.TrialPassAt
	}
	byAggregate := r.opts.ThresholdWins || j.Case != nil && j.Case.Suite != nil && j.Case.Suite.Threshold != nil
	recs := make([]*results.Record, 0, tr.Count)
	trials := make([]results.Trial, 0, tr.Count)
	var spent float64
	costLimited := false
	for i := range tr.Count {
		if i > 0 && ctx.Err() != nil {
			break
		}
		// Each trial is its own sample: the response cache keys its calls by the trial.
		rec := r.runOnce(cache.WithTrial(ctx, i), p, j, pre)
		pre = nil // a batch's answer serves the first trial only

		recs = append(recs, rec)
		trial := trialOf(i+1, rec)
		if passAt > 0 && trial.Verdict != results.VerdictError {
			trial.Verdict = verdict(trial.Score, passAt, false)
		}
		trials = append(trials, trial)
		if tr.CostUSD > 0 {
			if c := costOf(rec); c != nil {
				spent += *c
			} else if rec.Error == "" {
				r.costWarning.Do(func() {
					r.opts.Logf("trials: cost_limit_usd is set but target %q reports no cost, so every trial runs", p.Target().Name)
				})
			}
			if spent >= tr.CostUSD && i+1 < tr.Count {
				costLimited = true
				break
			}
		}
		if stopsAfter(tr, trial.Verdict) {
			break
		}
	}
	agg := results.AggregateTrials(tr.Strategy, trials, threshold, !byAggregate)
	attempts := 0
	for _, x := range recs {
		attempts += x.Attempts
	}
	rec := recs[results.BestTrial(trials)]
	rec.Score, rec.Verdict, rec.Flaky, rec.TrialInterval = agg.Score, agg.Verdict, agg.Flaky, agg.Interval
	rec.Trials, rec.TrialStrategy, rec.TrialsCostLimited = trials, tr.Strategy, costLimited
	rec.TrialsByAggregate = byAggregate
	if passAt > 0 {
		rec.TrialPassAt = &passAt
	}
	if agg.Verdict != results.VerdictError {
		rec.Error = "" // the standing trial ran; other trials' errors are in their entries
	}
	rec.Attempts = attempts
	rec.TraceSummary = sumUsage(rec.TraceSummary, recs)
	rec.Cache = sumCache(recs)
	rec.DurationMS = time.Since(start).Milliseconds()
	return rec
}

// stopsAfter tells whether no trial runs after one with verdict v: with early exit,
// pass_at_k stops at the first pass and pass_all at the first trial that did not pass (an
// error too, as 5.x's trial verdict is fail unless its status is ok). Without EarlyExit set,
// pass_at_k stops early (4.x) and the other strategies run every trial.
func stopsAfter(tr *suite.Trials, v results.Verdict) bool {
	early := tr.Strategy == suite.TrialsPassAtK || tr.Strategy == ""
	if tr.EarlyExit != nil {
		early = *tr.EarlyExit
	}
	switch {
	case !early:
		return false
	case tr.Strategy == suite.TrialsPassAll:
		return v != results.VerdictPass
	case tr.Strategy == suite.TrialsPassAtK || tr.Strategy == "":
		return v == results.VerdictPass
	}
	return false
}

// trialOf is a trial's entry in the case record, without the judges' prompts (the standing
// trial's are in the record itself).
func trialOf(n int, rec *results.Record) results.Trial {
	t := results.Trial{Trial: n, Score: rec.Score, Verdict: rec.Verdict, CandidateAnswer: rec.CandidateAnswer,
		Error: rec.Error, DurationMS: rec.DurationMS, CostUSD: costOf(rec), Turns: slices.Clone(rec.Turns)}
	if len(rec.EvaluatorResults) > 0 {
		t.EvaluatorResults = withoutPrompts(rec.EvaluatorResults)
	}
	return t
}

func withoutPrompts(ers []results.EvaluatorResult) []results.EvaluatorResult {
	out := make([]results.EvaluatorResult, len(ers))
	for i, e := range ers {
		e.EvaluatorProviderRequest = nil
		if e.EvaluatorResults != nil {
			e.EvaluatorResults = withoutPrompts(e.EvaluatorResults)
		}
		out[i] = e
	}
	return out
}

func costOf(rec *results.Record) *float64 {
	if rec.TraceSummary == nil || rec.TraceSummary.CostUSD == nil {
		return nil
	}
	c := *rec.TraceSummary.CostUSD
	return &c
}

// sumUsage is the standing trial's trace with the tokens and cost of every trial, so a
// case's usage is what its trials spent.
func sumUsage(ts *results.TraceSummary, recs []*results.Record) *results.TraceSummary {
	var in, out int64
	var cost float64
	haveTokens, haveCost := false, false
	for _, r := range recs {
		t := r.TraceSummary
		if t == nil {
			continue
		}
		if t.TokenUsage != nil {
			in, out, haveTokens = in+t.TokenUsage.Input, out+t.TokenUsage.Output, true
		}
		if t.CostUSD != nil {
			cost, haveCost = cost+*t.CostUSD, true
		}
	}
	if !haveTokens && !haveCost {
		return ts
	}
	var sum results.TraceSummary
	if ts != nil {
		sum = *ts
	}
	if haveTokens {
		sum.TokenUsage = &results.TokenUsage{Input: in, Output: out}
	}
	if haveCost {
		sum.CostUSD = &cost
	}
	return &sum
}

// sumCache adds up how every trial's calls went through the response cache.
func sumCache(recs []*results.Record) *results.CacheUse {
	var sum *results.CacheUse
	for _, r := range recs {
		if r.Cache == nil {
			continue
		}
		if sum == nil {
			sum = &results.CacheUse{}
		}
		sum.Hits += r.Cache.Hits
		sum.Misses += r.Cache.Misses
		sum.TokensSaved += r.Cache.TokensSaved
	}
	return sum
}
