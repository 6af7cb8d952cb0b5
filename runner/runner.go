// Package runner executes eval cases: a bounded pool per target, a timeout per target
// invocation with retries on timeout, provider batching with per-case fallback, judges,
// and one record per case streamed to a handler as soon as the case finishes.
//
// A failing case, judge or worker never stops or corrupts the others: every problem
// becomes that case's error record.
package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Defaults of the contract (§3.1).
const (
	DefaultTimeout    = 120 * time.Second
	DefaultMaxRetries = 2
	// drainGrace is how long cases already running may go on after cancellation
	// before their context is cancelled too.
	drainGrace = 5 * time.Second
)

// Handler receives each finished case's record, one call at a time, in completion order.
type Handler interface {
	CaseFinished(rec *results.Record)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(rec *results.Record)

// CaseFinished calls f.
func (f HandlerFunc) CaseFinished(rec *results.Record) { f(rec) }

// Options configure a run.
type Options struct {
	Workers       int           // --workers override; 0: the target's workers, else 1
	Timeout       time.Duration // per target invocation, judge call and script (0: DefaultTimeout)
	MaxRetries    int           // case-level retries on timeout
	CaseThreshold float64       // a case passes at score >= this
	Evaluators    evaluators.Options
	Redactor      *redact.Redactor
	Now           func() time.Time // clock for timestamps; nil: time.Now
	Logf          func(format string, args ...any)
	Verbose       bool
}

// Job is one case bound to the provider that answers it.
type Job struct {
	Case     *suite.Case
	Provider providers.Provider // nil when the case cannot run (see Err)
	// Err is a problem that prevents the case from running (unknown target, unset secret,
	// failed healthcheck): the case becomes an error record without invoking anything.
	Err error
	// Warnings are load-time warnings attached to the case (shown in reports).
	Warnings []results.Warning
	// File is the eval file as shown in reports.
	File string
}

// Runner runs jobs.
type Runner struct {
	opts    Options
	handler Handler
	mu      sync.Mutex // serializes handler calls
}

// New returns a runner reporting to h.
func New(opts Options, h Handler) *Runner {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Evaluators.Timeout <= 0 {
		opts.Evaluators.Timeout = opts.Timeout
	}
	if opts.Evaluators.Redactor == nil {
		opts.Evaluators.Redactor = opts.Redactor
	}
	return &Runner{opts: opts, handler: h}
}

// lane is the queue and worker limit of one provider.
type lane struct {
	provider providers.Provider
	limit    int
	jobs     []*Job
}

// Run executes every job and returns when all have a record or ctx was cancelled (then
// cases not yet started get no record; running ones finish within a short grace period).
func (r *Runner) Run(ctx context.Context, jobs []*Job) {
	// Cases in flight keep a context that outlives ctx by drainGrace, so a cancelled run
	// still records what was nearly done.
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	go func() {
		select {
		case <-ctx.Done():
			t := time.NewTimer(drainGrace)
			defer t.Stop()
			select {
			case <-t.C:
				stopWork()
			case <-work.Done():
			}
		case <-work.Done():
		}
	}()

	var lanes []*lane
	byProvider := map[providers.Provider]*lane{}
	var broken []*Job
	for _, j := range jobs {
		if j.Err != nil || j.Provider == nil {
			broken = append(broken, j)
			continue
		}
		l := byProvider[j.Provider]
		if l == nil {
			l = &lane{provider: j.Provider, limit: r.limit(j.Provider.Target())}
			byProvider[j.Provider] = l
			lanes = append(lanes, l)
		}
		l.jobs = append(l.jobs, j)
	}
	for _, j := range broken {
		if ctx.Err() != nil {
			break
		}
		r.emit(r.errorRecord(j, nil, 0, 0, jobErr(j)))
	}

	var wg sync.WaitGroup
	for _, l := range lanes {
		wg.Go(func() { r.runLane(ctx, work, l) })
	}
	wg.Wait()
}

func jobErr(j *Job) error {
	if j.Err != nil {
		return j.Err
	}
	return errors.New("no provider for this case")
}

func (r *Runner) limit(t *providers.Target) int {
	switch {
	case r.opts.Workers > 0:
		return r.opts.Workers
	case t != nil && t.Workers > 0:
		return t.Workers
	}
	return 1
}

// runLane runs one provider's jobs: a health check first, then batches or a worker pool.
func (r *Runner) runLane(ctx, work context.Context, l *lane) {
	if hc, ok := l.provider.(providers.HealthChecker); ok {
		if err := hc.HealthCheck(work); err != nil {
			err = fmt.Errorf("healthcheck of target %q failed, no case ran on it: %w", l.provider.Target().Name, err)
			for _, j := range l.jobs {
				if ctx.Err() != nil {
					return
				}
				r.emit(r.errorRecord(j, nil, 0, 0, &HealthcheckError{Err: err}))
			}
			return
		}
	}
	queue := make(chan func(), 1)
	go func() {
		defer close(queue)
		for _, batch := range r.plan(l) {
			if ctx.Err() != nil {
				return
			}
			if len(batch) > 1 {
				pending := r.runBatch(work, l, batch)
				for _, p := range pending {
					select {
					case queue <- p:
					case <-ctx.Done():
						return
					}
				}
				continue
			}
			j := batch[0]
			select {
			case queue <- func() { r.runCase(work, l.provider, j, nil) }:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range l.limit {
		wg.Go(func() {
			for f := range queue {
				f()
			}
		})
	}
	wg.Wait()
}

// plan groups a lane's jobs: with provider_batching on a batch-capable provider, the cases of
// one eval file form one batch; otherwise every job stands alone.
func (r *Runner) plan(l *lane) [][]*Job {
	t := l.provider.Target()
	_, canBatch := l.provider.(providers.BatchProvider)
	if t == nil || !t.ProviderBatching || !canBatch {
		if t != nil && t.ProviderBatching && r.opts.Verbose {
			r.opts.Logf("target %q: provider %s does not support batching; running cases one by one", t.Name, t.Kind)
		}
		// One-job views of l.jobs: no allocation per case.
		out := make([][]*Job, len(l.jobs))
		for i := range l.jobs {
			out[i] = l.jobs[i : i+1 : i+1]
		}
		return out
	}
	var out [][]*Job
	idx := map[*suite.Suite]int{}
	for _, j := range l.jobs {
		i, ok := idx[j.Case.Suite]
		if !ok {
			i = len(out)
			idx[j.Case.Suite] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], j)
	}
	return out
}
