package runner

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/targets"
)

// TestRunFileWorkers checks a 5.x file's evaluate_options.max_concurrency (Suite.Workers): it
// wins over the target's workers, and --workers wins over it.
func TestRunFileWorkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                         string
		target, file, flag, wantPeak int
	}{
		{"target only", 3, 0, 0, 3},
		{"file over target", 3, 2, 0, 2},
		{"file above target", 1, 4, 0, 4},
		{"flag over file", 3, 2, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: tt.target},
					answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
						time.Sleep(30 * time.Millisecond)
						return &providers.Response{Text: "hi"}, nil
					}}
				s := newSuite(10)
				s.Workers = tt.file
				opts := testOptions(1)
				opts.Workers = tt.flag
				var col collector
				New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, p)))
				if len(col.recs) != 10 {
					t.Fatalf("got %d records, want 10", len(col.recs))
				}
				if got := p.peak.Load(); got != int64(tt.wantPeak) {
					t.Errorf("peak concurrency %d, want %d", got, tt.wantPeak)
				}
			})
		})
	}
}

// TestRunFileWorkersApart checks that two files on one target keep their own limits.
func TestRunFileWorkersApart(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: 8},
			answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
				time.Sleep(30 * time.Millisecond)
				return &providers.Response{Text: "hi"}, nil
			}}
		a, b := newSuite(6), newSuite(6)
		a.Workers, b.Path = 1, "evals/b.yaml"
		var col collector
		New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), append(jobsFor(a, p), jobsFor(b, p)...)))
		if len(col.recs) != 12 {
			t.Fatalf("got %d records, want 12", len(col.recs))
		}
		// a runs one at a time beside b's 6 at once (the target's 8): 7 at most.
		if got := p.peak.Load(); got != 7 {
			t.Errorf("peak concurrency %d, want 7", got)
		}
	})
}
