// Package runner runs jobs: a pool per target, timeouts with retries, provider batching, and one
// record per case handed on as it finishes. A case runs once or as trials (runCase); a trial
// (runOnce) is the before_each hook, then one question or a conversation's turns, each asked
// the same way (ask). A failing case, judge or worker costs only that case: an error record.
package runner

import (
	"cmp"
	"context"

	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentv/action/config"
	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// drainGrace is how long running cases may go on after cancellation.
const drainGrace = 5 * time.Second

// Options are the run's settings (Timeout 0: config.DefaultTimeout; Gate.CaseThreshold: a
// case passes at this score; ThresholdWins: it wins over the files' execution.threshold) and
// what the runner needs from the command.
type Options struct {
	config.Settings
	Evaluators evaluators.Options
	Redactor   *redact.Redactor
	Now        func() time.Time // clock for timestamps; nil: time.Now
	Logf       func(format string, args ...any)
	// Stop, when set, is asked before each case starts: an error (a run budget spent, or its
	// eval file's) makes that case an error record with it, without calling its target.
	Stop func(j *plan.Job) error
}

// Runner runs jobs.
type Runner struct {
	opts    Options
	handler func(*results.Record) // gets each record, one call at a time, in completion order
	mu      sync.Mutex            // serializes handler calls

	healthMu     sync.Mutex
	healthFailed []error // one per target whose healthcheck failed

	lastStamp atomic.Pointer[stamp] // the last record timestamp

	costWarning sync.Once // a cost limit on trials whose target reports no cost is said once

	// deps holds the dependency node of each job of a file with `depends_on` (*plan.Job →
	// *depNode) until its record is emitted.
	deps sync.Map
}

// HealthFailures returns the run's failed healthchecks, one per target (the run is invalid).
func (r *Runner) HealthFailures() []error {
	r.healthMu.Lock()
	defer r.healthMu.Unlock()
	return append([]error(nil), r.healthFailed...)
}

// New returns a runner handing each record to h.
func New(opts Options, h func(*results.Record)) *Runner {
	if opts.Timeout <= 0 {
		opts.Timeout = config.DefaultTimeout
	}
	opts.MaxRetries = max(opts.MaxRetries, 0)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	// The graders run under the run's settings: its timeout, the same retry budget as targets
	// (a judge timing out is as transient), its case threshold.
	ev := &opts.Evaluators
	ev.Timeout, ev.MaxRetries, ev.Threshold, ev.Redactor = opts.Timeout, opts.MaxRetries, opts.Gate.CaseThreshold, opts.Redactor
	return &Runner{opts: opts, handler: h}
}

// laneQueue bounds the jobs waiting for one lane's workers: the stream is read only as fast as
// cases run, so a large suite is never held whole. A lane whose queue is full holds up the
// dispatch of the jobs behind it (other lanes' included) until one of its workers takes a job.
const laneQueue = 1024

// lane is the queue and worker limit of one provider.
type lane struct {
	provider providers.Provider
	limit    int
	batching bool           // provider_batching on a batch-capable provider
	jobs     []*plan.Job    // batching lanes: every job, batched per eval file when the stream ends
	queue    chan *plan.Job // other lanes: the jobs waiting for a worker
}

// Run executes jobs as they arrive and returns once jobs is closed and every job has a record,
// or ctx was cancelled (cases not yet started get no record; running ones finish within
// drainGrace). A provider gets its lane at its first job: a healthcheck, then its workers.
// Batching lanes keep their jobs until the stream ends (a batch is one eval file's cases).
// After cancellation, jobs still sent are dropped, so the sender never blocks.
func (r *Runner) Run(ctx context.Context, jobs <-chan *plan.Job) {
	// Cases in flight keep a context that outlives ctx by drainGrace, so a cancelled run
	// still records what was nearly done.
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(drainGrace, stopWork) })()

	var lanes []*lane
	byProvider := map[laneKey]*lane{}
	var wg sync.WaitGroup
	var deps depGraph
	var waiting sync.WaitGroup // jobs waiting for their dependencies (AgentV 4.x depends_on)
	for j := range jobs {
		if ctx.Err() != nil {
			continue
		}
		if j.Case != nil && j.Case.Suite != nil && j.Case.Suite.Dependencies {
			r.deps.Store(j, deps.track(j))
		}
		if j.Err != nil || j.Provider == nil {
			r.emit(j, r.errorRecord(j, nil, 0, 0, cmp.Or(j.Err, errors.New("no provider for this case"))))
			continue
		}
		key := laneKey{j.Provider, r.fileWorkers(j)}
		l := byProvider[key]
		if l == nil {
			l = r.newLane(j.Provider, key.workers)
			byProvider[key] = l
			lanes = append(lanes, l)
			if !l.batching {
				wg.Go(func() { r.runLane(ctx, work, l) })
			}
		}
		if _, tracked := r.deps.Load(j); tracked && len(j.Case.DependsOn) > 0 {
			// It waits off the stream, so the tests it waits for (later in the file too) keep
			// coming; a batching lane runs it on its own once they finished.
			wait := deps.waiter(j)
			waiting.Go(func() {
				if err := wait(ctx); err != nil {
					if ctx.Err() == nil {
						r.emit(j, r.errorRecord(j, nil, 0, 0, err))
					}
					return
				}
				if l.batching {
					r.runCase(work, l.provider, j, nil)
					return
				}
				select {
				case l.queue <- j:
				case <-ctx.Done():
				}
			})
			continue
		}
		if l.batching {
			l.jobs = append(l.jobs, j)
			continue
		}
		select {
		case l.queue <- j:
		case <-ctx.Done():
		}
	}
	deps.release()
	for _, l := range lanes {
		if l.batching {
			wg.Go(func() { r.runBatchLane(ctx, work, l) })
		}
	}
	waiting.Wait() // every dependent job is queued or recorded: the queues may close
	for _, l := range lanes {
		if !l.batching {
			close(l.queue)
		}
	}
	wg.Wait()
}

// laneKey picks a job's lane: its provider, and its eval file's own concurrency (a 5.x
// file's evaluate_options.max_concurrency, 0 if none), so such a file's limit holds for its
// tests whatever other files on that target ask.
type laneKey struct {
	provider providers.Provider
	workers  int
}

// fileWorkers is job j's eval file's own concurrency, 0 if none or when --workers is set
// (which wins over it, as 5.x's --workers wins over the file's).
func (r *Runner) fileWorkers(j *plan.Job) int {
	if r.opts.Workers > 0 || j.Case == nil || j.Case.Suite == nil {
		return 0
	}
	return j.Case.Suite.Workers
}

func (r *Runner) newLane(p providers.Provider, fileWorkers int) *lane {
	t := p.Target()
	l := &lane{provider: p, limit: cmp.Or(fileWorkers, r.limit(t))}
	_, canBatch := p.(providers.BatchProvider)
	switch {
	case t != nil && t.ProviderBatching && canBatch:
		l.batching = true
	case t != nil && t.ProviderBatching && r.opts.Verbose:
		r.opts.Logf("target %q: provider %s does not support batching; running cases one by one", t.Name, t.Kind)
	}
	if !l.batching {
		l.queue = make(chan *plan.Job, laneQueue)
	}
	return l
}

func (r *Runner) limit(t *targets.Target) int {
	switch {
	case r.opts.Workers > 0:
		return r.opts.Workers
	case t != nil && t.Workers > 0:
		return t.Workers
	}
	return 1
}

// healthKey is what a target's healthcheck depends on: the eval files' directory (a relative
// healthcheck cwd resolves against it) and their agent rules (a claude or codex target's relative
// cwd resolves against the working directory in 4.x files).
type healthKey struct {
	dir   string
	rules suite.AgentRules
}

func healthKeyOf(j *plan.Job) healthKey {
	if j.Case == nil || j.Case.Suite == nil {
		return healthKey{}
	}
	return healthKey{dir: j.Case.Suite.Dir, rules: j.Case.Suite.Agent}
}

// healthcheck runs the provider's healthcheck, if it has one, for the eval files of job j,
// once per healthKey (done holds those checked). A failure is the error of every case of the
// lane from those files.
func (r *Runner) healthcheck(work context.Context, l *lane, done map[healthKey]error, j *plan.Job) error {
	key := healthKeyOf(j)
	if err, checked := done[key]; checked {
		return err
	}
	done[key] = nil
	hc, ok := l.provider.(providers.HealthChecker)
	if !ok {
		return nil
	}
	if err := hc.HealthCheck(providers.WithAgentRules(providers.WithEvalDir(work, key.dir), key.rules)); err != nil {
		herr := &HealthcheckError{Err: fmt.Errorf("healthcheck of target %q failed, no case ran on it: %w", l.provider.Target().Name, err)}
		r.healthMu.Lock()
		r.healthFailed = append(r.healthFailed, herr)
		r.healthMu.Unlock()
		done[key] = herr
		return herr
	}
	return nil
}

// runLane runs a lane's queued jobs, a healthcheck first, at most the lane's limit at a time.
func (r *Runner) runLane(ctx, work context.Context, l *lane) {
	// Up to l.limit workers, started as jobs need them and kept for the next job: a goroutine a
	// case would grow a fresh stack for every case (measured: 10% of a 100,000-case run).
	jobs := make(chan *plan.Job)
	var wg sync.WaitGroup
	workers := 0
	run := func(j *plan.Job) {
		if ctx.Err() == nil {
			r.start(work, l.provider, j)
		}
	}
	health := map[healthKey]error{}
	for j := range l.queue {
		if ctx.Err() != nil {
			continue
		}
		if err := r.healthcheck(work, l, health, j); err != nil {
			if ctx.Err() == nil {
				r.emit(j, r.errorRecord(j, nil, 0, 0, err))
			}
			continue
		}
		select {
		case jobs <- j: // an idle worker takes it
			continue
		default:
		}
		if workers < l.limit {
			workers++
			wg.Go(func() {
				run(j)
				for j := range jobs {
					run(j)
				}
			})
			continue
		}
		jobs <- j
	}
	close(jobs)
	wg.Wait()
}

// start runs case j on p unless Stop refuses it (a run budget spent): an error record then.
func (r *Runner) start(ctx context.Context, p providers.Provider, j *plan.Job) {
	if r.opts.Stop != nil {
		if err := r.opts.Stop(j); err != nil {
			r.emit(j, r.errorRecord(j, nil, 0, 0, err))
			return
		}
	}
	r.runCase(ctx, p, j, nil)
}

// stopBatch asks Stop before a batch is sent, as AgentV 4.42.4 checks its run budget before
// each eval file (apps/cli/src/commands/eval/run-eval.ts:1651), batches included: once it is
// refused, every case of the batch is an error record and nothing is sent.
func (r *Runner) stopBatch(batch []*plan.Job) bool {
	if r.opts.Stop == nil {
		return false
	}
	err := r.opts.Stop(batch[0])
	if err == nil {
		return false
	}
	for i, j := range batch {
		if i > 0 { // asked for each case, so the refusals are counted; a spent budget stays spent
			if e := r.opts.Stop(j); e != nil {
				err = e
			}
		}
		r.emit(j, r.errorRecord(j, nil, 0, 0, err))
	}
	return true
}

// runBatchLane runs a batching lane once the stream has ended: one batch per eval file, each
// after the healthcheck for its directory, the answers scored by the lane's workers.
func (r *Runner) runBatchLane(ctx, work context.Context, l *lane) {
	var g errgroup.Group
	g.SetLimit(l.limit)
	run := func(f func()) {
		g.Go(func() error {
			if ctx.Err() == nil {
				f()
			}
			return nil
		})
	}
	health := map[healthKey]error{}
	for _, batch := range batches(l.jobs) {
		if ctx.Err() != nil {
			break
		}
		if err := r.healthcheck(work, l, health, batch[0]); err != nil {
			for _, j := range batch {
				if ctx.Err() != nil {
					break
				}
				r.emit(j, r.errorRecord(j, nil, 0, 0, err))
			}
			continue
		}
		if r.stopBatch(batch) {
			continue
		}
		if len(batch) > 1 {
			// The next batch call goes out while the lane scores this one's answers.
			for _, f := range r.runBatch(work, l, batch) {
				run(f)
			}
			continue
		}
		j := batch[0]
		run(func() { r.runCase(work, l.provider, j, nil) })
	}
	_ = g.Wait()
}

// batches groups a batching lane's jobs by eval file, in order of first appearance. A
// conversation is a batch of its own: each of its turns needs the answer to the one before.
func batches(jobs []*plan.Job) [][]*plan.Job {
	var out [][]*plan.Job
	idx := map[*suite.Suite]int{}
	for _, j := range jobs {
		if j.Case.Conversation != nil {
			out = append(out, []*plan.Job{j})
			continue
		}
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
