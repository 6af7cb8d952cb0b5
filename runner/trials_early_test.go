package runner

import (
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// TestStopsAfter checks when trials stop early: 4.x's pass_at_k always at the first pass,
// 5.x's strategies only with early_exit (pass_any at a pass, pass_all at a fail or error).
func TestStopsAfter(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	pass, fail, errd := results.VerdictPass, results.VerdictFail, results.VerdictError
	tests := []struct {
		strategy string
		early    *bool
		v        results.Verdict
		want     bool
	}{
		{suite.TrialsPassAtK, nil, pass, true},
		{"", nil, pass, true},
		{suite.TrialsPassAtK, nil, fail, false},
		{suite.TrialsPassAtK, &no, pass, false},
		{suite.TrialsPassAtK, &yes, pass, true},
		{suite.TrialsPassAtK, &yes, errd, false},
		{suite.TrialsPassAll, nil, fail, false},
		{suite.TrialsPassAll, &no, fail, false},
		{suite.TrialsPassAll, &yes, fail, true},
		{suite.TrialsPassAll, &yes, errd, true},
		{suite.TrialsPassAll, &yes, pass, false},
		{suite.TrialsMean, &yes, pass, false},
		{suite.TrialsConfidenceInterval, &yes, fail, false},
	}
	for _, tt := range tests {
		tr := &suite.Trials{Count: 3, Strategy: tt.strategy, EarlyExit: tt.early}
		if got := stopsAfter(tr, tt.v); got != tt.want {
			early := "unset"
			if tt.early != nil {
				early = map[bool]string{true: "true", false: "false"}[*tt.early]
			}
			t.Errorf("strategy %q early_exit %s after %s: stops %v, want %v", tt.strategy, early, tt.v, got, tt.want)
		}
	}
}

// TestTrialsOfCase checks that a case's own trials (5.x run.repeat) win over its file's and
// that --trials still wins over both.
func TestTrialsOfCase(t *testing.T) {
	t.Parallel()
	file := &suite.Trials{Count: 3, Strategy: suite.TrialsPassAtK}
	s := &suite.Suite{Trials: file}
	own := &suite.Case{Suite: s, Trials: &suite.Trials{Count: 4, Strategy: suite.TrialsMean}}
	once := &suite.Case{Suite: s, Trials: &suite.Trials{Count: 1, Strategy: suite.TrialsMean}}
	plain := &suite.Case{Suite: s}
	r := &Runner{}
	if got := r.trialsOf(own); got == nil || got.Count != 4 || got.Strategy != suite.TrialsMean {
		t.Errorf("case trials: got %+v, want 4 × mean", got)
	}
	if got := r.trialsOf(once); got != nil {
		t.Errorf("a case's count of 1 runs it once, got %+v", got)
	}
	if got := r.trialsOf(plain); got == nil || got.Count != 3 {
		t.Errorf("file trials: got %+v, want 3", got)
	}
	r.opts.Trials = suite.Trials{Count: 2}
	if got := r.trialsOf(own); got == nil || got.Count != 2 || got.Strategy != suite.TrialsMean {
		t.Errorf("--trials 2 over case trials: got %+v, want 2 × mean", got)
	}
}
