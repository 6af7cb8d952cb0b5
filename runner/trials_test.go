package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// sequenceJudge answers the n-th judge request with scores[n % len(scores)]: one judge call
// per trial, so each trial of a one-case run gets the next score.
type sequenceJudge struct {
	scores []float64
	n      atomic.Int64
}

func (s *sequenceJudge) Target() *targets.Target {
	return &targets.Target{Name: "judge", Kind: targets.KindMock}
}

func (s *sequenceJudge) Invoke(context.Context, *providers.Request) (*providers.Response, error) {
	i := int(s.n.Add(1)-1) % len(s.scores)
	return &providers.Response{Text: fmt.Sprintf(`{"score": %g, "hits": [], "misses": ["trial %d"], "reasoning": "r"}`, s.scores[i], i+1)}, nil
}

func trialOptions(scores ...float64) Options {
	opts := testOptions(1)
	j := &sequenceJudge{scores: scores}
	opts.Evaluators = evaluators.Options{Judges: func(*targets.Target, string) (providers.Provider, error) { return j, nil }}
	return opts
}

// TestRunTrials runs one case as trials under each strategy, with the judge's scores in
// sequence, and checks the trials recorded, the aggregate score and verdict, the flaky flag
// and how many times the target ran.
func TestRunTrials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		file      *suite.Trials // the eval file's execution.trials
		override  suite.Trials  // --trials, --trials-strategy
		scores    []float64     // the judge's, one per trial
		cost      float64       // the target's cost per answer, 0 for none
		wantCalls int64
		wantScore float64
		verdict   results.Verdict
		flaky     bool
		limited   bool
		threshold float64 // the eval file's execution.threshold, 0 for none
		v4        bool    // an AgentV 4.x file: a trial's own verdict passes at 0.8
		own       float64 // the test's own execution.threshold, 0 for none
		wins      float64 // --threshold, 0 for none
		trials    string  // the trials' verdicts, when checked
	}{
		{name: "pass_at_k stops at the first pass", file: &suite.Trials{Count: 4, Strategy: suite.TrialsPassAtK},
			scores: []float64{0.5, 0.9, 1}, wantCalls: 2, wantScore: 0.9, verdict: results.VerdictPass, flaky: true},
		{name: "pass_at_k none passes", file: &suite.Trials{Count: 3, Strategy: suite.TrialsPassAtK},
			scores: []float64{0.5, 0.7, 0.2}, wantCalls: 3, wantScore: 0.7, verdict: results.VerdictFail},
		// Without a threshold in the file a trial that passed passes the case, as in AgentV 4.42.4.
		{name: "mean runs them all", file: &suite.Trials{Count: 4, Strategy: suite.TrialsMean},
			scores: []float64{0.5, 1, 0, 1}, wantCalls: 4, wantScore: 0.625, verdict: results.VerdictPass, flaky: true},
		{name: "mean none passes", file: &suite.Trials{Count: 2, Strategy: suite.TrialsMean},
			scores: []float64{0.7, 0.75}, wantCalls: 2, wantScore: 0.725, verdict: results.VerdictFail},
		{name: "the eval file's threshold holds the mean to it", file: &suite.Trials{Count: 4, Strategy: suite.TrialsMean}, threshold: 0.7,
			scores: []float64{0.5, 1, 0, 1}, wantCalls: 4, wantScore: 0.625, verdict: results.VerdictFail, flaky: true},
		{name: "the eval file's threshold", file: &suite.Trials{Count: 4, Strategy: suite.TrialsMean}, threshold: 0.6,
			scores: []float64{0.5, 1, 0, 1}, wantCalls: 4, wantScore: 0.625, verdict: results.VerdictPass, flaky: true},
		{name: "confidence interval", file: &suite.Trials{Count: 3, Strategy: suite.TrialsConfidenceInterval},
			scores: []float64{0.9}, wantCalls: 3, wantScore: 0.9, verdict: results.VerdictPass},
		{name: "flag sets trials on a file without", override: suite.Trials{Count: 3, Strategy: suite.TrialsMean},
			scores: []float64{1, 1, 0.4}, wantCalls: 3, wantScore: 0.8, verdict: results.VerdictPass, flaky: true},
		{name: "flag count keeps the file's strategy", file: &suite.Trials{Count: 5, Strategy: suite.TrialsMean}, override: suite.Trials{Count: 2},
			scores: []float64{1, 0}, wantCalls: 2, wantScore: 0.5, verdict: results.VerdictPass, flaky: true},
		// A 4.x trial passes at 0.8 whatever the threshold, as in 4.42.4, and pass_at_k stops there;
		// the test passes when a trial reached its own threshold.
		{name: "4.x pass_at_k runs past a trial that reached a low threshold", v4: true, own: 0.5,
			file: &suite.Trials{Count: 3, Strategy: suite.TrialsPassAtK}, scores: []float64{0.6, 1, 0},
			wantCalls: 2, wantScore: 1, verdict: results.VerdictPass, flaky: true, trials: "fail pass"},
		{name: "4.x pass_at_k stops at 0.8 under a high threshold", v4: true, own: 0.9,
			file: &suite.Trials{Count: 3, Strategy: suite.TrialsPassAtK}, scores: []float64{0.8, 1},
			wantCalls: 1, wantScore: 0.8, verdict: results.VerdictFail, trials: "pass"},
		{name: "4.x mean passes on a trial that reached the test's threshold", v4: true, own: 0.5,
			file: &suite.Trials{Count: 3, Strategy: suite.TrialsMean}, scores: []float64{0.6, 0, 0},
			wantCalls: 3, wantScore: 0.2, verdict: results.VerdictPass, trials: "fail fail fail"},
		{name: "4.x confidence interval passes on a trial that reached the test's threshold", v4: true, own: 0.9,
			file: &suite.Trials{Count: 3, Strategy: suite.TrialsConfidenceInterval}, scores: []float64{1, 0, 0},
			wantCalls: 3, wantScore: 0, verdict: results.VerdictPass, flaky: true, trials: "pass fail fail"},
		{name: "4.x mean under the suite's threshold", v4: true, threshold: 0.5,
			file: &suite.Trials{Count: 3, Strategy: suite.TrialsMean}, scores: []float64{0.6, 0, 0},
			wantCalls: 3, wantScore: 0.2, verdict: results.VerdictFail, trials: "fail fail fail"},
		// --threshold holds the aggregate to it, as 4.42.4's does (its summary, statistics.ts:141).
		{name: "--threshold holds the mean to it", v4: true, wins: 0.5,
			file: &suite.Trials{Count: 3, Strategy: suite.TrialsMean}, scores: []float64{0.6, 0, 0},
			wantCalls: 3, wantScore: 0.2, verdict: results.VerdictFail, trials: "fail fail fail"},
		{name: "--threshold holds the confidence interval to it", wins: 0.3,
			file: &suite.Trials{Count: 3, Strategy: suite.TrialsConfidenceInterval}, scores: []float64{1, 0, 0},
			wantCalls: 3, wantScore: 0, verdict: results.VerdictFail, flaky: true, trials: "pass fail fail"},
		{name: "cost limit stops trials", file: &suite.Trials{Count: 5, Strategy: suite.TrialsMean, CostUSD: 1},
			scores: []float64{1}, cost: 0.4, wantCalls: 3, wantScore: 1, verdict: results.VerdictPass, limited: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock},
				answer: func(context.Context, *providers.Request) (*providers.Response, error) {
					resp := &providers.Response{Text: "hi"}
					if tt.cost > 0 {
						c := tt.cost
						resp.CostUSD = &c
					}
					return resp, nil
				}}
			s := newSuite(1)
			s.Trials = tt.file
			if tt.threshold > 0 {
				s.Threshold = &tt.threshold
			}
			if tt.v4 {
				s.TrialPassAt = suite.TrialPassAt4 // as the 4.x loader sets it
			}
			if tt.own > 0 {
				s.Cases[0].Threshold = &tt.own
			}
			opts := trialOptions(tt.scores...)
			opts.Trials = tt.override
			if tt.wins > 0 {
				opts.Gate.CaseThreshold, opts.ThresholdWins = tt.wins, true
			}
			var logs []string
			var mu sync.Mutex
			opts.Logf = func(f string, a ...any) { mu.Lock(); logs = append(logs, fmt.Sprintf(f, a...)); mu.Unlock() }
			var col collector
			New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, p)))
			if len(col.recs) != 1 {
				t.Fatalf("%d records, want 1", len(col.recs))
			}
			r := col.recs[0]
			if got := p.calls.Load(); got != tt.wantCalls || len(r.Trials) != int(tt.wantCalls) {
				t.Errorf("target ran %d times, %d trials recorded, want %d", got, len(r.Trials), tt.wantCalls)
			}
			if math.Abs(r.Score-tt.wantScore) > 1e-9 || r.Verdict != tt.verdict || r.Flaky != tt.flaky || r.TrialsCostLimited != tt.limited {
				t.Errorf("score %v verdict %s flaky %v limited %v, want %v %s %v %v", r.Score, r.Verdict, r.Flaky, r.TrialsCostLimited, tt.wantScore, tt.verdict, tt.flaky, tt.limited)
			}
			for i, tr := range r.Trials {
				want := tt.scores[i%len(tt.scores)]
				if tr.Trial != i+1 || tr.Score != want || tr.CandidateAnswer != "hi" || len(tr.EvaluatorResults) != 1 {
					t.Errorf("trial %d: %+v, want score %v", i+1, tr, want)
				}
				if len(tr.EvaluatorResults) == 1 && tr.EvaluatorResults[0].EvaluatorProviderRequest != nil {
					t.Errorf("trial %d keeps the judge's prompt", i+1)
				}
			}
			if tt.trials != "" {
				var got []string
				for _, tr := range r.Trials {
					got = append(got, string(tr.Verdict))
				}
				if strings.Join(got, " ") != tt.trials {
					t.Errorf("trial verdicts %q, want %q", got, tt.trials)
				}
			}
			if (r.TrialPassAt != nil) != tt.v4 || r.TrialsByAggregate != (tt.threshold > 0 || tt.wins > 0) {
				t.Errorf("trial_pass_at %v, trials_by_aggregate %v", r.TrialPassAt, r.TrialsByAggregate)
			}
			if r.Attempts != int(tt.wantCalls) {
				t.Errorf("attempts %d, want one per trial (%d)", r.Attempts, tt.wantCalls)
			}
			strategy := suite.TrialsPassAtK
			if tt.file != nil {
				strategy = tt.file.Strategy
			}
			if tt.override.Strategy != "" {
				strategy = tt.override.Strategy
			}
			if r.TrialStrategy != strategy || (r.TrialInterval != nil) != (strategy == suite.TrialsConfidenceInterval) {
				t.Errorf("strategy %q interval %+v, want %q", r.TrialStrategy, r.TrialInterval, strategy)
			}
			if tt.cost > 0 {
				if c := r.TraceSummary; c == nil || c.CostUSD == nil || math.Abs(*c.CostUSD-tt.cost*float64(tt.wantCalls)) > 1e-9 {
					t.Errorf("case cost %+v, want the sum of its trials", c)
				}
			}
			if len(logs) > 0 {
				t.Errorf("logged %q", logs)
			}
		})
	}
}

// TestRunTrialsOnce checks that a case runs once, with no trials recorded, without trials or
// with --trials 1 over a file's trials.
func TestRunTrialsOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		file     *suite.Trials
		override suite.Trials
	}{
		{"no trials", nil, suite.Trials{}},
		{"flag 1 over the file", &suite.Trials{Count: 3, Strategy: suite.TrialsMean}, suite.Trials{Count: 1}},
		{"strategy alone", nil, suite.Trials{Strategy: suite.TrialsMean}},
	} {
		p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock}, answer: answerText("hi")}
		s := newSuite(1)
		s.Trials = tt.file
		opts := trialOptions(1, 0)
		opts.Trials = tt.override
		var col collector
		New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, p)))
		if r := col.recs[0]; p.calls.Load() != 1 || r.Trials != nil || r.Flaky || r.TrialStrategy != "" {
			t.Errorf("%s: %d calls, trials %v flaky %v strategy %q; want one run", tt.name, p.calls.Load(), r.Trials, r.Flaky, r.TrialStrategy)
		}
	}
}

// TestRunTrialsErrors checks trials whose target fails: one failure among answers counts 0
// and leaves the case judged by its answers (no error on the case, the trial keeps it); when
// every trial fails the case is errored. A secret echoed in a trial's error is masked.
func TestRunTrialsErrors(t *testing.T) {
	t.Parallel()
	red := &redact.Redactor{}
	red.Add("sk-trial-secret-42")
	for _, tt := range []struct {
		name    string
		fail    func(n int64) bool // does call n (from 1) fail
		verdict results.Verdict
		score   float64
		flaky   bool
	}{
		{"first fails", func(n int64) bool { return n == 1 }, results.VerdictPass, 0.5, true},
		{"all fail", func(int64) bool { return true }, results.VerdictError, 0, false},
	} {
		var calls atomic.Int64
		p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock},
			answer: func(context.Context, *providers.Request) (*providers.Response, error) {
				if tt.fail(calls.Add(1)) {
					return nil, errors.New("connection refused by sk-trial-secret-42")
				}
				return &providers.Response{Text: "hi"}, nil
			}}
		s := newSuite(1)
		s.Trials = &suite.Trials{Count: 2, Strategy: suite.TrialsMean}
		opts := trialOptions(1)
		opts.Redactor = red
		var col collector
		New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, p)))
		r := col.recs[0]
		if r.Verdict != tt.verdict || r.Score != tt.score || r.Flaky != tt.flaky {
			t.Errorf("%s: verdict %s score %v flaky %v, want %s %v %v", tt.name, r.Verdict, r.Score, r.Flaky, tt.verdict, tt.score, tt.flaky)
		}
		if (r.Error != "") != (tt.verdict == results.VerdictError) {
			t.Errorf("%s: case error %q with verdict %s", tt.name, r.Error, r.Verdict)
		}
		e := r.Trials[0]
		if e.Verdict != results.VerdictError || !strings.Contains(e.Error, "connection refused by ***") || strings.Contains(e.CandidateAnswer, "sk-trial") {
			t.Errorf("%s: first trial %+v, want its masked error", tt.name, e)
		}
	}
}

// TestTrialsFor checks how the flags combine with a file's trials.
func TestTrialsFor(t *testing.T) {
	t.Parallel()
	file := &suite.Trials{Count: 4, Strategy: suite.TrialsConfidenceInterval, CostUSD: 2}
	tests := []struct {
		name     string
		file     *suite.Trials
		override suite.Trials
		want     *suite.Trials
	}{
		{"file alone", file, suite.Trials{}, file},
		{"count wins, file strategy and limit stay", file, suite.Trials{Count: 6}, &suite.Trials{Count: 6, Strategy: suite.TrialsConfidenceInterval, CostUSD: 2}},
		{"strategy wins", file, suite.Trials{Strategy: suite.TrialsMean}, &suite.Trials{Count: 4, Strategy: suite.TrialsMean, CostUSD: 2}},
		{"flag on a file without", nil, suite.Trials{Count: 3}, &suite.Trials{Count: 3, Strategy: suite.TrialsPassAtK}},
		{"flag 1 turns trials off", file, suite.Trials{Count: 1}, nil},
		{"neither", nil, suite.Trials{}, nil},
	}
	for _, tt := range tests {
		got := TrialsFor(tt.file, tt.override)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
