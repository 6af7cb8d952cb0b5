package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// TestRunDependencies: a test waits for the tests it depends on, wherever they are in the
// stream, and is recorded as an error without running when one errored (skip, fail), or runs
// anyway (run); a dependency the run does not hold (left out by --eval-id) lets it run.
func TestRunDependencies(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: 4},
		answer: func(_ context.Context, req *providers.Request) (*providers.Response, error) {
			mu.Lock()
			asked = append(asked, req.EvalID)
			mu.Unlock()
			if req.EvalID == "case-3" {
				return nil, errors.New("no answer")
			}
			return &providers.Response{Text: "hi"}, nil
		}}
	s := newSuite(6)
	s.Dependencies = true
	c := s.Cases
	c[0].DependsOn = []string{"case-3"}                                                 // after it in the stream; skip
	c[1].DependsOn, c[1].OnDependencyFailure = []string{"case-1"}, suite.DependencyRun  // runs though case-1 errored
	c[3].DependsOn, c[3].OnDependencyFailure = []string{"case-3"}, suite.DependencyFail // recorded as failed
	c[4].DependsOn = []string{"gone"}                                                   // not in this run
	c[5].DependsOn = []string{"case-5", "case-2"}                                       // both ran
	opts := trialOptions(1)
	opts.MaxRetries = 0
	var col collector
	New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, p)))
	got := col.byID()
	want := map[string]string{ // id → error fragment, "" for a scored case
		"case-1": "skipped: dependency failed (case-3)",
		"case-2": "",
		"case-3": "no answer",
		"case-4": "failed: dependency failed (case-3)",
		"case-5": "",
		"case-6": "",
	}
	for id, frag := range want {
		r := got[id]
		switch {
		case r == nil:
			t.Errorf("%s: no record", id)
		case frag == "" && (r.Error != "" || r.Verdict != results.VerdictPass):
			t.Errorf("%s: verdict %s error %q, want a pass", id, r.Verdict, r.Error)
		case frag != "" && (r.Verdict != results.VerdictError || !strings.Contains(r.Error, frag)):
			t.Errorf("%s: verdict %s error %q, want an error with %q", id, r.Verdict, r.Error, frag)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	at := func(id string) int { return slices.Index(asked, id) }
	if at("case-1") >= 0 || at("case-4") >= 0 || at("case-2") < 0 || at("case-6") < max(at("case-5"), at("case-2")) {
		t.Errorf("target asked %q: want neither case-1 nor case-4, and case-6 after case-5 and case-2", asked)
	}
}

// TestRunDependenciesCancelled: a test still waiting for a dependency when the run is
// cancelled gets no record, and the run returns.
func TestRunDependenciesCancelled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		started := make(chan struct{})
		p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: 2},
			answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
				close(started)
				<-ctx.Done() // the dependency never answers
				return nil, ctx.Err()
			}}
		s := newSuite(2)
		s.Dependencies = true
		s.Cases[1].DependsOn = []string{"case-1"}
		var col collector
		r := New(trialOptions(1), col.CaseFinished)
		go func() { <-started; cancel() }()
		r.Run(ctx, feed(ctx, jobsFor(s, p)))
		if rec := col.byID()["case-2"]; rec != nil {
			t.Errorf("case-2 recorded (%s %q) though the run was cancelled before its dependency finished", rec.Verdict, rec.Error)
		}
	})
}
