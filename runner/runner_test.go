package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentv/action/config"
	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// fakeProvider is an in-process provider: answer decides per request what happens.
type fakeProvider struct {
	target  *targets.Target
	answer  func(ctx context.Context, req *providers.Request) (*providers.Response, error)
	calls   atomic.Int64
	running atomic.Int64
	peak    atomic.Int64
}

func (f *fakeProvider) Target() *targets.Target { return f.target }

func (f *fakeProvider) Invoke(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	f.calls.Add(1)
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return f.answer(ctx, req)
}

type fakeBatch struct {
	fakeProvider
	batches atomic.Int64
	fail    bool
}

func (f *fakeBatch) InvokeBatch(ctx context.Context, reqs []*providers.Request) ([]*providers.Response, error) {
	f.batches.Add(1)
	if f.fail {
		return nil, errors.New("batch command failed")
	}
	out := make([]*providers.Response, len(reqs))
	for i, r := range reqs {
		if r.EvalID == "missing" {
			out[i] = &providers.Response{Error: "batch output missing id 'missing'"}
			continue
		}
		out[i] = &providers.Response{Text: "batch answer for " + r.EvalID}
	}
	return out, nil
}

// verdictJudge answers every judge request with a fixed verdict.
type verdictJudge struct{ score float64 }

func (v verdictJudge) Target() *targets.Target {
	return &targets.Target{Name: "judge", Kind: targets.KindMock}
}
func (v verdictJudge) Invoke(ctx context.Context, req *providers.Request) (*providers.Response, error) {
	return &providers.Response{Text: fmt.Sprintf(`{"score": %g, "hits": ["ok"], "misses": [], "reasoning": "fine"}`, v.score)}, nil
}

func answerText(s string) func(context.Context, *providers.Request) (*providers.Response, error) {
	return func(context.Context, *providers.Request) (*providers.Response, error) {
		return &providers.Response{Text: s}, nil
	}
}

func newSuite(n int) *suite.Suite {
	s := &suite.Suite{Path: "evals/s.yaml", Dataset: "s", Dir: "/tmp"}
	for i := range n {
		c := &suite.Case{Suite: s, ID: fmt.Sprintf("case-%d", i+1), Line: i*3 + 2,
			ExpectedOutcome: "says hi",
			Input:           []suite.Message{{Role: "user", Content: suite.Content{Kind: suite.ContentText, Text: "hi"}}}}
		c.Question = "hi"
		s.Cases = append(s.Cases, c)
	}
	return s
}

type collector struct {
	mu   sync.Mutex
	recs []*results.Record
}

func (c *collector) CaseFinished(r *results.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, r)
}

func (c *collector) byID() map[string]*results.Record {
	m := map[string]*results.Record{}
	for _, r := range c.recs {
		m[r.EvalID] = r
	}
	return m
}

func testOptions(score float64) Options {
	return Options{
		Settings: config.Settings{Timeout: 2 * time.Second, MaxRetries: 2, Gate: gate.Options{CaseThreshold: 0.8}},
		Evaluators: evaluators.Options{
			Judges: func(*targets.Target, string) (providers.Provider, error) { return verdictJudge{score}, nil },
		},
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
}

// feed sends jobs to a runner as the run pipeline does, until ctx is cancelled.
func feed(ctx context.Context, jobs []*plan.Job) <-chan *plan.Job {
	ch := make(chan *plan.Job)
	go func() {
		defer close(ch)
		for _, j := range jobs {
			select {
			case ch <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

func jobsFor(s *suite.Suite, p providers.Provider) []*plan.Job {
	var jobs []*plan.Job
	for _, c := range s.Cases {
		jobs = append(jobs, &plan.Job{Case: c, Provider: p, File: s.Path})
	}
	return jobs
}

func TestRunWorkerLimit(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: 3},
			answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
				time.Sleep(30 * time.Millisecond)
				return &providers.Response{Text: "hi"}, nil
			}}
		var col collector
		New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(newSuite(12), p)))
		if len(col.recs) != 12 {
			t.Fatalf("got %d records, want 12", len(col.recs))
		}
		if got := p.peak.Load(); got != 3 {
			t.Errorf("peak concurrency %d, want the target's workers (3)", got)
		}
		for _, r := range col.recs {
			if r.Verdict != results.VerdictPass || r.Score != 1 || r.Attempts != 1 || r.Timestamp != "2026-01-02T03:04:05.000Z" {
				t.Errorf("record %s: verdict %s score %v attempts %d ts %s", r.EvalID, r.Verdict, r.Score, r.Attempts, r.Timestamp)
			}
		}
		// --workers overrides the target's setting.
		p.peak.Store(0)
		opts := testOptions(1)
		opts.Workers = 1
		New(opts, (&collector{}).CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(newSuite(4), p)))
		if got := p.peak.Load(); got != 1 {
			t.Errorf("peak concurrency with --workers 1 = %d", got)
		}
	})
}

func TestRunRetriesTimeouts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		slowAttempts int // attempts that hang until their timeout
		maxRetries   int
		wantVerdict  results.Verdict
		wantAttempts int
		wantErr      string
	}{
		{"succeeds after two timeouts", 2, 2, results.VerdictPass, 3, ""},
		{"gives up", 5, 1, results.VerdictError, 2, "every one of 2 invocations timed out"},
		{"no retries", 1, 0, results.VerdictError, 1, "the invocation timed out (1 attempt, no retries left)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var seen []int
			var mu sync.Mutex
			p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock},
				answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
					mu.Lock()
					seen = append(seen, req.Attempt)
					mu.Unlock()
					if req.Attempt < tt.slowAttempts {
						<-ctx.Done()
						return nil, ctx.Err()
					}
					return &providers.Response{Text: "hi"}, nil
				}}
			opts := testOptions(1)
			opts.Timeout = 50 * time.Millisecond
			opts.MaxRetries = tt.maxRetries
			var col collector
			New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(newSuite(1), p)))
			r := col.recs[0]
			if r.Verdict != tt.wantVerdict || r.Attempts != tt.wantAttempts || !strings.Contains(r.Error, tt.wantErr) {
				t.Errorf("verdict %s attempts %d error %q; want %s %d %q", r.Verdict, r.Attempts, r.Error, tt.wantVerdict, tt.wantAttempts, tt.wantErr)
			}
			for i, a := range seen {
				if a != i {
					t.Errorf("attempt counter sequence %v, want 0,1,2,...", seen)
					break
				}
			}
		})
	}
}

func TestRunErrorsAreIsolated(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: 4},
		answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
			switch req.EvalID {
			case "case-2":
				return nil, errors.New("HTTP 401: bad key")
			case "case-3":
				panic("provider bug")
			}
			return &providers.Response{Text: "hi"}, nil
		}}
	s := newSuite(5)
	jobs := jobsFor(s, p)
	jobs = append(jobs, &plan.Job{Case: &suite.Case{Suite: s, ID: "no-target", Line: 99}, Err: errors.New(`target "nope" not found`), File: s.Path},
		&plan.Job{Case: &suite.Case{Suite: s, ID: "unbuilt", Line: 100}, Err: errors.New("api_key is not set"), File: s.Path, Target: "azure"})
	var col collector
	New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobs))
	got := col.byID()
	if len(got) != 7 {
		t.Fatalf("got %d records, want 7", len(got))
	}
	// A target that could not be made is named by its record; none chosen, none named.
	if r := got["unbuilt"]; r.Verdict != results.VerdictError || r.Target != "azure" {
		t.Errorf("unbuilt = %+v, want an error record of target azure", r)
	}
	if r := got["no-target"]; r.Target != "" {
		t.Errorf("no-target names target %q", r.Target)
	}
	if r := got["case-2"]; r.Verdict != results.VerdictError || r.Attempts != 1 || !strings.Contains(r.Error, "401") ||
		r.CandidateAnswer != "Error occurred: HTTP 401: bad key" || r.Misses[0] != "Error: HTTP 401: bad key" {
		t.Errorf("case-2 = %+v", r)
	}
	if r := got["case-3"]; r.Verdict != results.VerdictError || !strings.Contains(r.Error, "provider bug") {
		t.Errorf("case-3 = %+v", r)
	}
	if r := got["no-target"]; r.Verdict != results.VerdictError || !strings.Contains(r.Error, "not found") || r.Line != 99 {
		t.Errorf("no-target = %+v", r)
	}
	for _, id := range []string{"case-1", "case-4", "case-5"} {
		if got[id].Verdict != results.VerdictPass {
			t.Errorf("%s = %s, want pass", id, got[id].Verdict)
		}
	}
}

func TestRunVerdicts(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock}, answer: answerText("hi")}
	for _, tt := range []struct {
		score float64
		want  results.Verdict
	}{{0.8, results.VerdictPass}, {0.79, results.VerdictFail}, {0, results.VerdictFail}} {
		var col collector
		New(testOptions(tt.score), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(newSuite(1), p)))
		if r := col.recs[0]; r.Verdict != tt.want || r.Score != tt.score {
			t.Errorf("score %v: verdict %s (score %v), want %s", tt.score, r.Verdict, r.Score, tt.want)
		}
	}
}

func TestRunBatching(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			t.Parallel()
			p := &fakeBatch{fail: fail}
			p.target = &targets.Target{Name: "t", Kind: targets.KindCLI, ProviderBatching: true}
			p.answer = answerText("single answer")
			s1, s2 := newSuite(3), newSuite(2)
			s2.Path = "evals/other.yaml"
			s2.Cases = append(s2.Cases, &suite.Case{Suite: s2, ID: "missing", Line: 50})
			jobs := append(jobsFor(s1, p), jobsFor(s2, p)...)
			var col collector
			New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobs))
			if len(col.recs) != 6 {
				t.Fatalf("got %d records, want 6", len(col.recs))
			}
			if got := p.batches.Load(); got != 2 {
				t.Errorf("batch calls = %d, want one per eval file (2)", got)
			}
			if fail {
				if got := p.calls.Load(); got != 6 {
					t.Errorf("fallback calls = %d, want 6", got)
				}
				return
			}
			if got := p.calls.Load(); got != 0 {
				t.Errorf("per-case calls = %d, want 0", got)
			}
			m := col.byID()
			if r := m["missing"]; r.Verdict != results.VerdictError || !strings.Contains(r.Error, "missing id") {
				t.Errorf("missing = %+v", r)
			}
			if r := m["case-1"]; r.CandidateAnswer != "batch answer for case-1" {
				t.Errorf("case-1 answer = %q", r.CandidateAnswer)
			}
		})
	}
}

type failingHealth struct{ fakeProvider }

func (f *failingHealth) HealthCheck(context.Context) error {
	return errors.New("GET http://127.0.0.1:1/health: connection refused")
}

func TestRunHealthcheckFailure(t *testing.T) {
	t.Parallel()
	p := &failingHealth{}
	p.target = &targets.Target{Name: "agent", Kind: targets.KindCLI}
	p.answer = answerText("hi")
	var col collector
	r := New(testOptions(1), col.CaseFinished)
	r.Run(t.Context(), feed(t.Context(), jobsFor(newSuite(3), p)))
	if f := r.HealthFailures(); len(f) != 1 || !strings.Contains(f[0].Error(), `"agent"`) {
		t.Errorf("HealthFailures = %v, want one naming the target", f)
	}
	if p.calls.Load() != 0 {
		t.Errorf("cases ran despite a failed healthcheck")
	}
	for _, r := range col.recs {
		if r.Verdict != results.VerdictError || !strings.Contains(r.Error, `healthcheck of target "agent" failed`) {
			t.Errorf("record = %+v", r)
		}
	}
}

func TestRunCancellation(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		started := make(chan struct{}, 100)
		p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: 2},
			answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
				started <- struct{}{}
				time.Sleep(100 * time.Millisecond)
				return &providers.Response{Text: "hi"}, nil
			}}
		var col collector
		go func() { <-started; cancel() }()
		New(testOptions(1), col.CaseFinished).Run(ctx, feed(ctx, jobsFor(newSuite(50), p)))
		if n := len(col.recs); n == 0 || n > 4 {
			t.Errorf("after cancellation %d cases finished; want the running ones only (1..4)", n)
		}
		for _, r := range col.recs {
			if r.Verdict != results.VerdictPass {
				t.Errorf("a case running at cancellation should still finish: %+v", r)
			}
		}
	})
}

func TestRunRedactsSecrets(t *testing.T) {
	t.Parallel()
	red := &redact.Redactor{}
	red.Add("sk-test-SECRET-1234")
	p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock},
		answer: func(ctx context.Context, req *providers.Request) (*providers.Response, error) {
			if req.EvalID == "case-1" {
				return nil, errors.New("401: invalid key sk-test-SECRET-1234")
			}
			return &providers.Response{Text: "my key is sk-test-SECRET-1234"}, nil
		}}
	opts := testOptions(1)
	opts.Redactor = red
	var col collector
	New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(newSuite(2), p)))
	for _, r := range col.recs {
		b := mustMarshal(t, r)
		if strings.Contains(string(b), "SECRET") {
			t.Errorf("record leaks the secret: %s", b)
		}
	}
}

// TestRunStop checks Options.Stop: once it says no, a case starts no target call and
// becomes an error record with its reason; the cases started before run as usual.
func TestRunStop(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock, Workers: 1}, answer: answerText("hi")}
	var col collector
	opts := testOptions(1)
	var started atomic.Int64
	opts.Stop = func(*plan.Job) error {
		if started.Add(1) > 2 {
			return errors.New("not run: budget spent")
		}
		return nil
	}
	New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(newSuite(5), p)))
	if p.calls.Load() != 2 || len(col.recs) != 5 {
		t.Fatalf("%d target calls, %d records; want 2 and 5", p.calls.Load(), len(col.recs))
	}
	stopped := 0
	for _, r := range col.recs {
		if r.Verdict == results.VerdictError && r.Error == "not run: budget spent" && r.Attempts == 0 {
			stopped++
		}
	}
	if stopped != 3 {
		t.Errorf("%d records stopped, want 3: %+v", stopped, col.recs)
	}
}

// TestRunStopBatch checks Options.Stop on a batching target: asked before each batch (4.42.4
// checks its run budget before each eval file), a refused batch is not sent and each of its
// cases is an error record; when a batch call fails, each case falling back to its own call
// asks again.
func TestRunStopBatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name           string
		fail           bool
		allow          int64 // Stop's answers that are yes
		batches, calls int64
		stopped        int
	}{
		{name: "spent before the first batch", allow: 0, batches: 0, calls: 0, stopped: 5},
		{name: "spent before the second batch", allow: 1, batches: 1, calls: 0, stopped: 2},
		// One file: the lane's next batch would ask while the fallback cases do.
		{name: "fallback cases ask again", fail: true, allow: 2, batches: 1, calls: 1, stopped: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &fakeBatch{fail: tt.fail}
			p.target = &targets.Target{Name: "t", Kind: targets.KindCLI, ProviderBatching: true}
			p.answer = answerText("single answer")
			s1, s2 := newSuite(3), newSuite(2)
			s2.Path = "evals/other.yaml"
			opts := testOptions(1)
			opts.Workers = 1 // one batch at a time, in file order
			var asked atomic.Int64
			opts.Stop = func(*plan.Job) error {
				if asked.Add(1) > tt.allow {
					return errors.New("not run: budget spent")
				}
				return nil
			}
			jobs := jobsFor(s1, p)
			if !tt.fail {
				jobs = append(jobs, jobsFor(s2, p)...)
			}
			var col collector
			New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobs))
			stopped := 0
			for _, r := range col.recs {
				if r.Verdict == results.VerdictError && r.Error == "not run: budget spent" && r.Attempts == 0 {
					stopped++
				}
			}
			if len(col.recs) != len(jobs) || p.batches.Load() != tt.batches || p.calls.Load() != tt.calls || stopped != tt.stopped {
				t.Errorf("%d records, %d batch calls, %d case calls, %d stopped; want %d, %d, %d, %d",
					len(col.recs), p.batches.Load(), p.calls.Load(), stopped, len(jobs), tt.batches, tt.calls, tt.stopped)
			}
		})
	}
}

// TestRunThresholdWins checks Options.ThresholdWins: the run's case threshold over a suite's
// own execution.threshold (AgentV 4.x's --threshold).
func TestRunThresholdWins(t *testing.T) {
	t.Parallel()
	p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock}, answer: answerText("hi")}
	low := 0.5
	for _, wins := range []bool{false, true} {
		s := newSuite(1)
		s.Threshold = &low
		var col collector
		opts := testOptions(0.6)
		opts.ThresholdWins = wins
		New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, p)))
		want := results.VerdictPass // 0.6 passes the suite's 0.5
		if wins {
			want = results.VerdictFail // not the run's 0.8
		}
		if r := col.recs[0]; r.Verdict != want || (wins && r.CaseThreshold != nil) {
			t.Errorf("wins %v: verdict %s, case threshold %v; want %s", wins, r.Verdict, r.CaseThreshold, want)
		}
	}
}
