package runner

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentv/action/plan"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// notifyCollector signals each record as it arrives.
type notifyCollector struct {
	collector
	got chan string
}

func (c *notifyCollector) CaseFinished(r *results.Record) {
	c.collector.CaseFinished(r)
	c.got <- r.EvalID
}

// RunStream runs cases while the stream is still open, one lane per provider with that
// provider's worker limit, and records jobs that cannot run.
func TestRunStreamTwoProviders(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		slow := func(name string, workers int) *fakeProvider {
			return &fakeProvider{target: &targets.Target{Name: name, Kind: targets.KindMock, Workers: workers},
				answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
					time.Sleep(5 * time.Millisecond)
					return &providers.Response{Text: "hi from " + name}, nil
				}}
		}
		a, b := slow("a", 2), slow("b", 3)
		s := newSuite(20)
		col := &notifyCollector{got: make(chan string, 100)}
		jobs := make(chan *plan.Job)
		done := make(chan struct{})
		go func() {
			defer close(done)
			New(testOptions(1), col.CaseFinished).Run(t.Context(), jobs)
		}()

		// The first case of each provider finishes before anything else is sent: nothing waits
		// for the end of the stream.
		jobs <- &plan.Job{Case: s.Cases[0], Provider: a, File: s.Path}
		if id := <-col.got; id != "case-1" {
			t.Fatalf("first record %q, want case-1", id)
		}
		jobs <- &plan.Job{Case: s.Cases[1], Provider: b, File: s.Path}
		if id := <-col.got; id != "case-2" {
			t.Fatalf("second record %q, want case-2", id)
		}
		for i, c := range s.Cases[2:] {
			p := a
			if i%2 == 1 {
				p = b
			}
			jobs <- &plan.Job{Case: c, Provider: p, File: s.Path}
		}
		jobs <- &plan.Job{Case: &suite.Case{Suite: s, ID: "broken", Line: 99}, Err: errors.New(`target "nope" not found`), File: s.Path}
		close(jobs)
		<-done

		m := col.byID()
		if len(m) != 21 {
			t.Fatalf("got %d records, want 21", len(m))
		}
		for i := range 20 {
			id := fmt.Sprintf("case-%d", i+1)
			want := "hi from a"
			if i == 1 || (i >= 2 && (i-2)%2 == 1) {
				want = "hi from b"
			}
			if r := m[id]; r.Verdict != results.VerdictPass || r.CandidateAnswer != want {
				t.Errorf("%s: verdict %s answer %q, want pass from %q", id, r.Verdict, r.CandidateAnswer, want)
			}
		}
		if r := m["broken"]; r.Verdict != results.VerdictError || r.Line != 99 {
			t.Errorf("broken = %+v", r)
		}
		if a.calls.Load() != 10 || b.calls.Load() != 10 {
			t.Errorf("calls a=%d b=%d, want 10 each", a.calls.Load(), b.calls.Load())
		}
		if pa, pb := a.peak.Load(), b.peak.Load(); pa > 2 || pb > 3 {
			t.Errorf("peak concurrency a=%d (limit 2) b=%d (limit 3)", pa, pb)
		}
	})
}
