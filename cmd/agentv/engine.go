package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentv/action/action"
	"github.com/agentv/action/cache"
	"github.com/agentv/action/compare"
	"github.com/agentv/action/config"
	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/forkserver"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
	"github.com/agentv/action/runner"
	"github.com/agentv/action/suite"
)

// EvalConfig is everything one eval run needs: the user's settings, and what the command
// works out from where and how it runs.
type EvalConfig struct {
	config.Settings
	Out               string             // results JSONL path
	OutName           string             // what moves Out, for messages: "" is the --out flag
	Details           report.DetailLevel // how much model text the Markdown reports will show
	SkipOnUnsetSecret bool               // an unset ${{ VAR }} skips the whole run (fork pull requests)
	SkipReason        string             // explanation used when skipping
	BaselineSource    string             // names the baseline in reports instead of its path (a workflow run)
	// Rerun runs again only the cases an earlier run did not settle, carrying its other
	// records over (--rerun-failed, --retry-errors); nil: every case runs.
	Rerun *rerunFrom
}

// Engine runs one eval and keeps what the reports need.
type Engine struct {
	Cfg      EvalConfig
	Redactor *redact.Redactor
	Handler  func(*results.Record) // progress; may be nil
	Logf     func(format string, args ...any)
	Now      func() time.Time
	Done     func() // called when Run returns (flushes buffered progress); may be nil
	// Starting is called before any case finishes: total is Total(); trials is how many
	// times each case runs, 0 when they differ; shard is the run's part of a split suite.
	Starting func(files, total, trials int, shard *config.Shard)
	Stopping func() // called once when ctx is cancelled before the run ends (Ctrl-C)

	total     atomic.Int64           // cases the run will run; -1 while not known
	onSeveral func(file string) bool // see OnSeveralTargets; nil before planning
}

// Total returns how many cases the run will run, -1 while JSONL files are still unread.
func (e *Engine) Total() int { return int(e.total.Load()) }

// OnSeveralTargets reports whether rec's eval file runs its cases on more than one target:
// its progress lines then name their targets (known once the case is planned).
func (e *Engine) OnSeveralTargets(rec *results.Record) bool {
	return e.onSeveral != nil && e.onSeveral(rec.File)
}

// Outcome is what an eval run produced.
type Outcome struct {
	Cases       []*report.Case     // what the reports keep of each finished case
	JUnitParts  *report.JUnitParts // the cases' JUnit testcases, rendered as they finished
	Diagnostics []suite.Diagnostic
	Problems    []string // configuration or input problems: the run is invalid
	SkipReason  string
	Skipped     int      // cases planned but not run because the run was skipped
	Notices     []string // things the user should know that are no problem (ignored .env files)
	Targets     []string
	Started     time.Time
	Duration    time.Duration
	ResultsPath string
	// Planned is how many cases the run selected; at least that many unless PlannedComplete
	// (loading was cancelled).
	Planned         int
	PlannedComplete bool
	Cancelled       bool              // interrupted before every planned case finished
	Shard           *results.RunShard // the run's part of a split suite; a report's merged shards

	// ran is set once a case ran or, for a report, was read: an invalid run that ran nothing
	// leaves the previous run's files as they were.
	ran     bool
	refused bool // an output of the run is one of its inputs: nothing is written
	merged  bool // a report of several results files: no one file holds its records
	guard   *outputGuard
	results *resultsFile // the results file until it is committed
	stopped bool         // the file read back was written by a run that did not finish
	budget  *budgets     // --budget-usd's account or the files' own, nil without a budget

	collector  *report.Collector
	Comparison *compare.Result // nil without a baseline
}

// Close releases the JUnit spool and drops a results file that was not committed.
func (o *Outcome) Close() {
	if o == nil {
		return
	}
	if o.collector != nil {
		_ = o.collector.Close()
	}
	if o.results != nil {
		o.results.f.Abort()
		o.results = nil
	}
}

// keepOutputs reports whether the run's files (results and reports) may replace the previous
// ones: not when an output is one of the run's inputs, nor when the run is invalid and ran
// nothing (a typo in a flag must not wipe the last good run's results).
func (o *Outcome) keepOutputs(run *report.Run) bool {
	if o.refused || o.guard.collided() {
		return false
	}
	return o.ran || run.Decision.Outcome != gate.Invalid
}

// commitResults writes the results file's end record and puts it in place, or drops the file
// when it must not replace the previous one.
func (o *Outcome) commitResults(run *report.Run, now time.Time) error {
	rf := o.results
	if rf == nil {
		return nil
	}
	o.results = nil
	if !o.keepOutputs(run) {
		rf.f.Abort()
		o.ResultsPath = ""
		return nil
	}
	return rf.commit(endRecord(o, run, now))
}

// Run is the run pipeline: cases stream from the eval files through selection, the shard and
// the plan to the runner, and each record to the results file as it finishes. YAML files are
// parsed first (their count is the run's total); JSONL cases become jobs as their lines are
// read and are dropped once run, so memory does not grow with the suite. A fork pull request
// (SkipOnUnsetSecret) plans every case before the first runs: skipping is decided first. A
// results file that cannot be written is a problem of the run.
func (e *Engine) Run(ctx context.Context) *Outcome {
	if e.Done != nil {
		defer e.Done()
	}
	e.total.Store(-1)
	if e.Stopping != nil {
		stop := context.AfterFunc(ctx, e.Stopping)
		defer stop()
	}
	if e.Logf == nil {
		e.Logf = func(string, ...any) {}
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	cfg := &e.Cfg
	out := &Outcome{Started: e.Now()}
	refuse := func(problems ...string) *Outcome {
		out.Problems, out.refused = problems, true
		out.Duration = e.Now().Sub(out.Started)
		return out
	}
	problem := func(err error) { out.Problems = append(out.Problems, e.Redactor.String(err.Error())) }

	files, diags := suite.Expand(cfg.Paths, cfg.Cwd)
	out.Diagnostics = append(out.Diagnostics, diags...)
	outName := cmp.Or(cfg.OutName, "--out")
	out.guard = newOutputGuard(cfg.Out, filepath.Dir(cfg.Out), cfg.Cwd, outName)
	if problems := e.checkInputs(files, out.guard); len(problems) > 0 {
		return refuse(problems...)
	}
	// The baseline is read whole before the run, so it may be the results file this run
	// replaces.
	cmpr, note, err := loadBaseline(cfg.BaselinePath, cfg.Cwd, cfg.BaselineSource, cfg.Gate.RegressionMargin)
	if err != nil {
		return refuse(e.Redactor.String(err.Error()))
	}
	if note != "" {
		out.Notices = append(out.Notices, note)
	}
	if rr := cfg.Rerun; rr != nil {
		note, err := rr.read(cfg.Gate.CaseThreshold)
		if err != nil {
			return refuse(e.Redactor.String(err.Error()))
		}
		out.Notices = append(out.Notices, note)
	}
	store := e.openCache()
	p := plan.New(plan.Options{Settings: cfg.Settings, Redactor: e.Redactor, Logf: e.Logf, Display: e.display,
		Check: out.guard.check, Cache: store, Select: cfg.selector(), ByID: cfg.byID(), SelectOn: cfg.Rerun.selectOn()})
	e.onSeveral = p.OnSeveralTargets
	defer func() {
		if err := p.Close(); err != nil {
			e.Logf("removing a workspace: %v", err)
		}
	}()
	st := &loadState{}
	p.Preload(files)
	pre, trials := e.preload(p, files)

	var planned []*plan.Job // a fork pull request's every job, planned before any runs
	if cfg.SkipOnUnsetSecret {
		e.stream(ctx, p, files, pre, st, func(j *plan.Job) bool {
			planned = append(planned, j)
			return true
		})
		e.finish(out, p, st)
		if why := p.SkipReason(cfg.SkipReason); why != "" {
			out.SkipReason, out.Skipped = why, len(planned)
			out.Duration = e.Now().Sub(out.Started)
			return out
		}
	}

	// Results file: started before running, appended as each case finishes, put in place
	// by commitResults once the outcome is known.
	start := startRecord(cfg.Gate, cmpr, out.Started)
	if sh := cfg.Shard; sh != nil {
		start.Shard = &results.RunShard{Index: sh.Index, Count: sh.Count}
	}
	if cfg.SkipOnUnsetSecret {
		start.Planned = new(len(planned))
	}

	rf, err := createResults(cfg.Out, start)
	if err != nil {
		problem(err)
		return out
	}
	out.results, out.ResultsPath = rf, cfg.Out
	col := report.NewCollector(cfg.Details, cfg.Gate.CaseThreshold, action.MaxAnnotationsPerLevel)
	out.collector, out.JUnitParts = col, col.Parts()
	var writeErr error
	bud := newBudgets(cfg.BudgetUSD, pre, e.display)
	out.budget = bud
	write := func(rec *results.Record) {
		if cmpr != nil {
			cmpr.Add(rec) // sets the record's baseline score
		}
		if err := rf.w.Write(rec); err != nil && writeErr == nil {
			writeErr = err
		}
	}
	carried := 0
	if rr := cfg.Rerun; rr != nil {
		// The earlier run's settled cases go into this run's results as they were, so its
		// results file is whole.
		for _, rec := range rr.recs {
			write(rec)
			col.Add(rec)
			out.ran = true
		}
		carried = len(rr.recs)
		rr.recs = nil
	}
	forkserver.SetIsolation(cfg.GraderIsolation)
	r := runner.New(runner.Options{Settings: cfg.Settings, Redactor: e.Redactor, Now: e.Now, Logf: e.Logf, Stop: bud.stop,
		Evaluators: evaluators.Options{Judges: p.Judge, Env: proc.ChildEnv(cfg.Environ, nil)}},
		func(rec *results.Record) {
			write(rec)
			if rec.Attempts > 0 {
				out.ran = true
			}
			if e.Handler != nil {
				e.Handler(rec)
			}
			col.Add(rec)
			bud.add(rec)
		})
	if e.Starting != nil {
		e.Starting(len(files), e.Total(), trials, p.Shard())
	}
	ch := make(chan *plan.Job)
	go func() {
		defer close(ch)
		send := func(j *plan.Job) bool {
			select {
			case ch <- j:
				return true
			case <-ctx.Done():
				return false
			}
		}
		if !cfg.SkipOnUnsetSecret {
			e.stream(ctx, p, files, pre, st, send)
			return
		}
		for i, j := range planned {
			planned[i] = nil // released once it has run
			if !send(j) {
				return
			}
		}
	}()
	r.Run(ctx, ch) // returns after ch is closed, so st is complete here
	if err := rf.w.Flush(); err != nil && writeErr == nil {
		writeErr = err
	}
	out.Cases = col.Cases()
	if cmpr != nil {
		out.Comparison = cmpr.Result()
	}
	if !cfg.SkipOnUnsetSecret {
		e.finish(out, p, st)
	}
	// Every case has run: the suites' after_all hooks now, so a failing one is a warning of
	// this run (4.42.4 always prints it), not a --verbose line after the reports.
	out.Diagnostics = append(out.Diagnostics, p.FinishWorkspaces()...)
	if w := store.Warning(); w != "" {
		out.Diagnostics = append(out.Diagnostics, suite.Diagnostic{Severity: suite.SeverityWarning, Kind: "cache", Message: w})
	}
	for _, err := range r.HealthFailures() {
		out.Problems = append(out.Problems, e.Redactor.String(err.Error()))
	}
	if sh := p.Shard(); sh != nil {
		id, n := sh.Plan()
		out.Shard = &results.RunShard{Index: sh.Index, Count: sh.Count, Plan: id, PlanCases: new(n)}
	}
	out.Duration = e.Now().Sub(out.Started)
	out.Planned, out.PlannedComplete = st.jobs, st.complete
	if t := e.Total(); t >= 0 {
		out.Planned, out.PlannedComplete = t, true // YAML files were counted before running
	}
	out.Planned += carried
	if ctx.Err() != nil {
		out.Cancelled = true
		total := fmt.Sprintf("%d", out.Planned)
		if !out.PlannedComplete {
			total = "at least " + total
		}
		out.Problems = append(out.Problems, fmt.Sprintf("run cancelled: %d of %s cases finished", len(col.Cases()), total))
	}
	if writeErr != nil {
		problem(writeErr)
	}
	return out
}

// openCache returns the run's response cache, nil for none (a dry run has no answers to keep).
func (e *Engine) openCache() *cache.Store {
	cfg := &e.Cfg
	if cfg.DryRun {
		return nil
	}
	dir := cfg.CacheDir
	if dir == "" {
		dir = filepath.Join(cmp.Or(cfg.Workspace, cfg.Cwd), config.DefaultCacheDir)
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.Cwd, dir)
	}
	// A link committed in the checkout, on the way to the folder, must not be followed: the
	// path is checked from the workspace down (the working directory when not under it).
	base := cfg.Cwd
	if cfg.Workspace != "" && safefile.Within(dir, cfg.Workspace) {
		base = cfg.Workspace
	}
	return cache.Open(cache.Options{Dir: dir, Base: base, Mode: cfg.Cache, Verbose: cfg.Verbose, Logf: e.Logf, Redactor: e.Redactor})
}

// display returns the path shown in records, diagnostics and reports: relative to the
// workspace when it holds the file, so results, links and annotations agree whatever the
// working directory; else the path as loaded.
func (e *Engine) display(p string) string {
	ws := e.Cfg.Workspace
	if ws == "" || p == "" {
		return p
	}
	abs := absIn(e.Cfg.Cwd, p)
	if !safefile.Within(abs, ws) {
		return p
	}
	rel, _ := filepath.Rel(ws, abs)
	return filepath.ToSlash(rel)
}

// runTrials is how many trials each case of files with fileTrials runs under override
// (--trials): 0 when the files differ.
func runTrials(fileTrials []*suite.Trials, override suite.Trials) int {
	n := 1
	for i, ft := range fileTrials {
		c := 1
		if t := runner.TrialsFor(ft, override); t != nil {
			c = t.Count
		}
		if i > 0 && c != n {
			return 0
		}
		n = c
	}
	return n
}

// loadState is what loading found, for the outcome once loading is over.
type loadState struct {
	diags    []suite.Diagnostic // every file's diagnostics, in file order
	jobErrs  []string           // distinct reasons why cases cannot run, in order
	seenErr  map[string]bool
	jobs     int  // jobs planned
	files    int  // eval files loaded
	complete bool // every file was read to its end (false after cancellation)
}

func (st *loadState) add(j *plan.Job) {
	st.jobs++
	if j.Err == nil {
		return
	}
	if st.seenErr == nil {
		st.seenErr = map[string]bool{}
	}
	if msg := j.Err.Error(); !st.seenErr[msg] {
		st.seenErr[msg] = true
		st.jobErrs = append(st.jobErrs, msg)
	}
}

// preload parses every YAML eval file (every file, for a fork pull request) before any case
// runs, so the run's total is known from the start; pre[i] is files[i]'s suite, nil for a
// JSONL file read as its cases run. Those files' non-blank lines are counted instead, unless
// cases are selected by id (then the total is known once every file is read). trials is what
// Starting is told (see runTrials). A shard reads its JSONL files here a first time, for the
// hashes of their cases (why twice: docs/architecture.md, "One pipeline").

func (e *Engine) preload(p *plan.Planner, files []string) (pre []*suite.Suite, trials int) {
	pre = make([]*suite.Suite, len(files))
	total, known := 0, true
	sharded := p.Shard() != nil
	var hashes []uint64 // every selected case's, in all shards
	var streamed []uint64
	fileTrials := make([]*suite.Trials, len(files))
	for i, f := range files {
		opts := loadOptions(e.Cfg.Cwd, e.Cfg.Workspace, e.Cfg.Environ, e.Cfg.NoDotenv, e.Redactor)
		isJSONL := strings.EqualFold(filepath.Ext(f), ".jsonl") && !e.Cfg.SkipOnUnsetSecret
		switch {
		case isJSONL && sharded:
			opts.OnCase = func(c *suite.Case) bool {
				if p.SelectedByID(c) {
					streamed = append(streamed, config.CaseHash(c))
				}
				return true
			}
			suite.Load(f, opts) // problems are reported when the file is read to run
			continue
		case isJSONL:
			n, err := suite.CountJSONLCases(f)
			if err != nil || e.Cfg.filtered() || e.Cfg.Rerun != nil {
				known = false // the loader reports an unreadable file
			}
			total += n
			continue
		}
		s := suite.Load(f, opts)
		pre[i], fileTrials[i] = s, s.Trials
		p.CheckSelection(s, s.Cases)
		if sharded {
			for _, c := range s.Cases {
				if p.SelectedByID(c) {
					hashes = append(hashes, config.CaseHash(c))
				}
			}
		}
	}
	if sharded {
		p.Shard().Balance(append(hashes, streamed...))
		for _, h := range streamed {
			if p.Shard().HasHash(h) {
				total++
			}
		}
	}
	for _, s := range pre {
		if s == nil {
			continue
		}
		for _, c := range s.Cases {
			total += p.Runs(s, c)
		}
	}
	if known {
		e.total.Store(int64(total))
	}
	return pre, runTrials(fileTrials, e.Cfg.Trials)
}

// stream loads the files in order and sends a job for every selected case: JSONL cases as
// their lines are read, parsed files' (pre) in file order. It stops when send refuses a job
// (the run was cancelled).
func (e *Engine) stream(ctx context.Context, p *plan.Planner, files []string, pre []*suite.Suite, st *loadState, send func(*plan.Job) bool) {
	sendAll := func(jobs []*plan.Job) bool {
		for _, j := range jobs {
			if !send(j) {
				return false
			}
			st.add(j)
		}
		return true
	}
	for i, f := range files {
		if ctx.Err() != nil {
			return
		}
		seen := 0 // diagnostics of the file already searched for case warnings
		s := pre[i]
		pre[i] = nil // its cases are released as they run
		if s == nil {
			opts := loadOptions(e.Cfg.Cwd, e.Cfg.Workspace, e.Cfg.Environ, e.Cfg.NoDotenv, e.Redactor)
			opts.OnCase = func(c *suite.Case) bool {
				// A case's warnings are recorded before it is handed over.
				var warns []suite.Diagnostic
				if ds := c.Suite.Diagnostics; len(ds) > seen {
					warns = plan.CaseWarnings(ds[seen:], e.display)[c.ID]
					seen = len(ds)
				}
				return sendAll(p.Jobs(c.Suite, c, warns))
			}
			s = suite.Load(f, opts)
		}
		st.diags = append(st.diags, s.Diagnostics...)
		st.files++
		cases := s.Cases // parsed files only: streamed JSONL cases were sent already
		s.Cases = nil
		var warns map[string][]suite.Diagnostic
		if len(cases) > 0 {
			warns = plan.CaseWarnings(s.Diagnostics, e.display)
		}
		for i, c := range cases {
			cases[i] = nil // released once it has run
			if !sendAll(p.Jobs(s, c, warns[c.ID])) {
				return
			}
		}
	}
	if ctx.Err() != nil {
		return
	}
	st.complete = true
	e.total.Store(int64(st.jobs))
}

// finish fills the outcome from what loading found: diagnostics (display paths), targets,
// and the problems that make the run invalid.
func (e *Engine) finish(out *Outcome, p *plan.Planner, st *loadState) {
	out.Diagnostics = append(out.Diagnostics, st.diags...)
	diags, notices, targets := p.Found()
	out.Diagnostics = append(out.Diagnostics, diags...)
	out.Notices = append(out.Notices, notices...)
	out.Targets = append(out.Targets, targets...)
	for i := range out.Diagnostics {
		d := &out.Diagnostics[i]
		d.File = e.display(d.File)
		d.Message = e.Redactor.String(d.Message)
		if d.IsError() {

			out.Problems = append(out.Problems, e.Redactor.String(d.Error()))
		}
	}
	// A case that cannot run for a configuration reason (unknown target, unset variable,
	// missing targets file) makes the run invalid; each distinct reason is listed once.
	for _, msg := range st.jobErrs {
		out.Problems = append(out.Problems, e.Redactor.String(msg))
	}
	if e.Cfg.filtered() && st.jobs == 0 && st.files > 0 && st.complete && (e.Cfg.Rerun == nil || len(e.Cfg.Rerun.keys) == 0) {
		out.Problems = append(out.Problems, "no eval case matched "+e.Cfg.filterFlags())
	}
}
