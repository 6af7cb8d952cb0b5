package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentv/action/action"
	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
	"github.com/agentv/action/runner"
	"github.com/agentv/action/suite"
)

// EvalConfig is everything one eval run needs, from flags or Action inputs.
type EvalConfig struct {
	Paths       []string // eval files, directories or globs
	TargetsPath string   // --targets: a file or directory; "" discovers per eval file
	Target      string   // --target override ("" or "default": none)
	JudgeTarget string   // --judge-target
	Workers     int      // --workers / max-concurrency override
	EvalID      string   // --eval-id glob
	Timeout     time.Duration
	MaxRetries  int
	Out         string // results JSONL path
	DryRun      bool
	DryRunDelay time.Duration
	DryRunMin   time.Duration
	DryRunMax   time.Duration
	Gate        gate.Options
	Verbose     bool
	Details     report.DetailLevel // how much model text the Markdown reports will show
	Cwd         string
	Workspace   string   // GITHUB_WORKSPACE
	Environ     []string // process environment
	// NoDotenv leaves .env files unread: under GitHub Actions secrets come from the workflow,
	// and a committed .env (placeholder keys) must not stand in for withheld secrets.
	NoDotenv bool
	// SkipOnUnsetSecret makes an unset ${{ VAR }} skip the whole run (fork pull requests).
	SkipOnUnsetSecret bool
	SkipReason        string // explanation used when skipping

	minScore float64 // flag storage; Gate.MinScore points at a copy when set
}

// Engine runs one eval and keeps what the reports need.
type Engine struct {
	Cfg      EvalConfig
	Redactor *redact.Redactor
	Handler  runner.Handler // extra per-case handler (progress); may be nil
	Logf     func(format string, args ...any)
	Now      func() time.Time
	Done     func() // called when Run returns (flushes buffered progress); may be nil
	// Starting is called once the run knows what it will run, before any case finishes:
	// total is the number of cases, or -1 while JSONL files (read as cases run) are unread.
	Starting func(files, total int)
	// Stopping is called once when ctx is cancelled before the run ends (Ctrl-C).
	Stopping func()

	total atomic.Int64 // cases the run will run; -1 while not known
}

// Total returns how many cases the run will run, or -1 while it is not known yet (JSONL files
// are read as their cases run, so their count is known once they are read to the end).
func (e *Engine) Total() int { return int(e.total.Load()) }

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
	// Planned is how many cases the run selected; PlannedComplete is false when loading was
	// cut short (cancelled), so at least that many.
	Planned         int
	PlannedComplete bool
	Cancelled       bool // interrupted before every planned case finished

	// ran is set once a case ran (a target was called) or, for a report, a case was read:
	// an invalid run that ran nothing leaves the previous run's files as they were.
	ran bool
	// refused is set when an output of the run is one of its inputs: nothing is written.
	refused bool
	guard   *outputGuard
	results *resultsFile // the results file until it is committed
	stopped bool         // the file read back was written by a run that did not finish

	collector *report.Collector
}

// newCollector returns the collector of a run's or a results file's cases: it keeps the
// records the annotations can show too.
func newCollector(details report.DetailLevel, caseThreshold float64) *report.Collector {
	col := report.NewCollector(details, caseThreshold)
	col.KeepWorst(action.MaxAnnotationsPerLevel)
	return col
}

// Close releases what the outcome holds for its reports (the JUnit spool), and drops a
// results file that was not committed.
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
// when the run's files must not replace the previous ones. An error is a problem of the run.
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

// targetKey identifies one provider instance: a target of one targets file.
type targetKey struct{ file, name string }

type planner struct {
	e          *Engine
	files      map[string]*providers.TargetsFile
	reported   map[string]bool // targets files whose diagnostics are in diags
	notices    []string
	dotenvSeen map[string]bool // .env files left unread (NoDotenv), already noticed
	providers  map[targetKey]providers.Provider
	errs       map[targetKey]error
	mu         sync.Mutex
	diags      []suite.Diagnostic
	unset      []*providers.UnsetVarError
	targets    map[string]bool
	guard      *outputGuard // refuses inputs that are outputs of the run

	// last caches what every case of one eval file shares (planning runs on one goroutine).
	last struct {
		s       *suite.Suite
		display string
		tf      *providers.TargetsFile
		err     error
	}
}

// Run loads, plans and runs the eval. The results file is written as cases finish.
//
// JSONL files are streamed: each case becomes a job as soon as its line is read and is
// dropped once it has run, so memory does not grow with the suite. A fork pull request
// (SkipOnUnsetSecret) loads and plans everything first instead, since skipping must be
// decided before any case runs.
func (e *Engine) Run(ctx context.Context) (*Outcome, error) {
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

	files, diags := suite.Expand(cfg.Paths, cfg.Cwd)
	out.Diagnostics = append(out.Diagnostics, diags...)
	out.guard = newOutputGuard(cfg.Out, filepath.Dir(cfg.Out), cfg.Cwd)
	if problems := e.checkInputs(files, out.guard); len(problems) > 0 {
		out.Problems, out.refused = problems, true
		out.Duration = e.Now().Sub(out.Started)
		return out, nil
	}
	p := &planner{e: e, files: map[string]*providers.TargetsFile{}, providers: map[targetKey]providers.Provider{},
		errs: map[targetKey]error{}, targets: map[string]bool{}, guard: out.guard,
		reported: map[string]bool{}, dotenvSeen: map[string]bool{}}
	st := &loadState{}
	p.preload(files)

	var jobs []*runner.Job
	if cfg.SkipOnUnsetSecret {
		var suites []*suite.Suite
		for _, f := range files {
			s := suite.Load(f, suite.LoadOptions{Cwd: cfg.Cwd, Workspace: cfg.Workspace})
			st.diags = append(st.diags, s.Diagnostics...)
			suites = append(suites, s)
		}
		st.files, st.complete = len(suites), true
		jobs = p.plan(suites)
		// From here on the jobs hold the cases; each is released as soon as it has run.
		for _, s := range suites {
			s.Cases = nil
		}
		for _, j := range jobs {
			st.add(j)
		}
		e.total.Store(int64(len(jobs)))
		e.finish(out, p, st)
		if len(p.unset) > 0 {
			u := p.unset[0]
			need := fmt.Sprintf("target %q needs %s, which is not set", u.Target, u.Var)
			if why := strings.TrimSpace(cfg.SkipReason); why != "" {
				need = why + ": " + need
			}
			out.SkipReason = need + "; secrets are not passed to workflows triggered from forks, so no case ran"
			out.Skipped = len(jobs)
			out.Duration = e.Now().Sub(out.Started)
			return out, nil
		}
	}

	// Results file: started before running, appended as each case finishes, put in place
	// by commitResults once the outcome is known.
	start := &results.RunRecord{Kind: results.KindRunStart, Format: results.RunFormat, Version: version(),
		Timestamp: out.Started.UTC().Format(stampLayout), Gate: cfg.Gate.Record()}
	if cfg.SkipOnUnsetSecret {
		start.Planned = results.Int(len(jobs)) // everything was planned before running
	}
	rf, err := createResults(cfg.Out, start)
	if err != nil {
		return out, err
	}
	out.results, out.ResultsPath = rf, cfg.Out
	w := rf.w
	col := newCollector(cfg.Details, cfg.Gate.CaseThreshold)
	out.collector, out.JUnitParts = col, col.Parts()
	var writeErr error
	handler := runner.HandlerFunc(func(rec *results.Record) {
		if err := w.Write(rec); err != nil && writeErr == nil {
			writeErr = err
		}
		if rec.Attempts > 0 {
			out.ran = true
		}
		if e.Handler != nil {
			e.Handler.CaseFinished(rec)
		}
		col.Add(rec)
	})
	r := runner.New(runner.Options{
		Workers: cfg.Workers, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries,
		CaseThreshold: cfg.Gate.CaseThreshold, Redactor: e.Redactor, Now: e.Now,
		Logf: e.Logf, Verbose: cfg.Verbose,
		Evaluators: evaluators.Options{
			Timeout: cfg.Timeout, Judges: p.judge, Redactor: e.Redactor,
			Env: proc.ChildEnv(cfg.Environ, nil),
		},
	}, handler)
	if cfg.SkipOnUnsetSecret {
		if e.Starting != nil {
			e.Starting(len(files), len(jobs))
		}
		r.Run(ctx, jobs)
	} else {
		pre := p.preloadYAML(files)
		if e.Starting != nil {
			e.Starting(len(files), e.Total())
		}
		ch := make(chan *runner.Job)
		go p.stream(ctx, files, pre, st, ch)
		// RunStream returns after the channel is closed, so st is complete here.
		r.RunStream(ctx, ch)
	}
	if err := w.Flush(); err != nil && writeErr == nil {
		writeErr = err
	}
	out.Cases = col.Cases()
	if !cfg.SkipOnUnsetSecret {
		e.finish(out, p, st)
	}
	for _, err := range r.HealthFailures() {
		out.Problems = append(out.Problems, e.Redactor.String(err.Error()))
	}
	out.Duration = e.Now().Sub(out.Started)
	out.Planned, out.PlannedComplete = st.jobs, st.complete
	if t := e.Total(); t >= 0 {
		out.Planned, out.PlannedComplete = t, true // YAML files were counted before running
	}
	if ctx.Err() != nil {
		out.Cancelled = true
		total := fmt.Sprintf("%d", out.Planned)
		if !out.PlannedComplete {
			total = "at least " + total
		}
		out.Problems = append(out.Problems, fmt.Sprintf("run cancelled: %d of %s cases finished", col.Len(), total))
	}
	return out, writeErr
}

// plan binds every selected case to its target's provider.
func (p *planner) plan(suites []*suite.Suite) []*runner.Job {
	var jobs []*runner.Job
	for _, s := range suites {
		warns := caseWarnings(s.Diagnostics, p.e.display)
		for _, c := range s.Cases {
			if j := p.job(s, c, warns[c.ID]); j != nil {
				jobs = append(jobs, j)
			}
		}
	}
	return jobs
}

// job binds one case to its target's provider; nil when --eval-id leaves the case out.
func (p *planner) job(s *suite.Suite, c *suite.Case, warns []results.Warning) *runner.Job {
	if !p.selected(c) {
		return nil
	}
	p.forSuite(s)
	j := &runner.Job{Case: c, File: p.last.display, Warnings: warns}
	if j.Err = p.checkReferences(c); j.Err != nil {
		return j
	}
	j.Provider, j.Err = p.provider(s, c)
	if j.Err == nil {
		j.Err = p.checkJudges(j.Provider.Target(), c)
	}
	return j
}

// selected reports whether --eval-id (if given) selects the case.
func (p *planner) selected(c *suite.Case) bool {
	if id := p.e.Cfg.EvalID; id != "" {
		ok, _ := doublestar.Match(id, c.ID)
		return ok
	}
	return true
}

// targetName picks the case's target: override, case, suite, "default".
func (p *planner) targetName(s *suite.Suite, c *suite.Case) string {
	if t := strings.TrimSpace(p.e.Cfg.Target); t != "" && t != "default" {
		return t
	}
	if c.Target != "" {
		return c.Target
	}
	if s.Target != "" {
		return s.Target
	}
	return "default"
}

func (p *planner) targetsFile(s *suite.Suite) (*providers.TargetsFile, error) {
	tf, err := p.loadTargets(s.Dir, s.RepoRoot)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reported[tf.Abs] {
		p.reported[tf.Abs] = true
		p.diags = append(p.diags, tf.Diagnostics...)
	}
	return tf, nil
}

// loadTargets loads (once) the targets file of eval files in dir, registering the value of
// every `${{ VAR }}` reference it holds with the redactor.
func (p *planner) loadTargets(dir, repoRoot string) (*providers.TargetsFile, error) {
	cfg := &p.e.Cfg
	var path string
	var err error
	if cfg.TargetsPath != "" {
		path, err = providers.ResolveTargetsFlag(cfg.TargetsPath)
	} else {
		path, err = providers.FindTargetsFile(dir, repoRoot, cfg.Cwd)
	}
	if err != nil {
		return nil, err
	}
	if err := p.guard.check(path, "targets file"); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(path)
	// Judges look targets files up from running cases while the stream is still planning.
	p.mu.Lock()
	defer p.mu.Unlock()
	if tf, ok := p.files[abs]; ok {
		return tf, nil
	}
	var env providers.LookupEnv
	var envErr error
	if cfg.NoDotenv {
		env = providers.NewEnv(cfg.Environ, "", "")
		for _, f := range providers.DotenvFiles(dir, repoRoot) {
			if !p.dotenvSeen[f] {
				p.dotenvSeen[f] = true
				p.notices = append(p.notices, fmt.Sprintf("%s was not read: .env files are for local runs; under GitHub Actions, pass secrets through the workflow's env", p.e.display(f)))
			}
		}
	} else {
		env, envErr = providers.LoadEnv(cfg.Environ, dir, repoRoot)
	}
	tf := providers.LoadTargets(path, env, p.e.Redactor)
	if envErr != nil {
		tf.Diagnostics = append(tf.Diagnostics, suite.Diagnostic{Severity: suite.SeverityError, Kind: suite.KindFile, Message: envErr.Error()})
	}
	p.files[abs] = tf
	return tf, nil
}

// preload loads the targets file of every eval file before any case runs, so that every
// secret any of them references is masked from the first output on: child processes inherit
// the environment and may print a variable of a target that runs later, or never. Problems
// are reported when a case needs the file.
func (p *planner) preload(files []string) {
	cfg := &p.e.Cfg
	seen := map[string]bool{}
	for _, f := range files {
		abs := f
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cfg.Cwd, abs)
		}
		abs, _ = filepath.Abs(abs)
		dir := filepath.Dir(filepath.Clean(abs))
		if seen[dir] {
			continue
		}
		seen[dir] = true
		_, _ = p.loadTargets(dir, suite.FindRepoRoot(dir, cfg.Workspace, cfg.Cwd))
	}
}

// forSuite fills p.last for s: its display path and targets file, looked up once per file
// rather than once per case.
func (p *planner) forSuite(s *suite.Suite) {
	if p.last.s == s {
		return
	}
	p.last.s, p.last.display = s, p.e.display(s.Path)
	p.last.tf, p.last.err = p.targetsFile(s)
}

// provider returns the (shared) provider of the case's target.
func (p *planner) provider(s *suite.Suite, c *suite.Case) (providers.Provider, error) {
	p.forSuite(s)
	tf, err := p.last.tf, p.last.err
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	if suite.HasErrors(tf.Diagnostics) {
		return nil, fmt.Errorf("targets file %s has errors", tf.Path)
	}
	return p.build(tf, p.targetName(s, c))
}

func (p *planner) build(tf *providers.TargetsFile, name string) (providers.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := targetKey{tf.Abs, name}
	if pr, ok := p.providers[key]; ok {
		return pr, nil
	}
	if err, ok := p.errs[key]; ok {
		return nil, err
	}
	pr, err := p.construct(tf, name)
	if err != nil {
		var uv *providers.UnsetVarError
		if errors.As(err, &uv) {
			p.unset = append(p.unset, uv)
		}
		p.errs[key] = err
		return nil, err
	}
	p.providers[key] = pr
	p.targets[name] = true
	return pr, nil
}

func (p *planner) construct(tf *providers.TargetsFile, name string) (providers.Provider, error) {
	cfg := &p.e.Cfg
	t, err := tf.Find(name)
	if err != nil {
		return nil, err
	}
	if cfg.DryRun {
		return providers.DryRun(t, cfg.DryRunDelay, cfg.DryRunMin, cfg.DryRunMax), nil
	}
	pr, warns, err := providers.New(t, providers.Options{
		Verbose: cfg.Verbose, Timeout: cfg.Timeout, Env: proc.ChildEnv(cfg.Environ, nil, t.ReferencedVars()...),
		Logf: p.e.Logf,
	})
	p.diags = append(p.diags, warns...)
	return pr, err
}

// judge resolves the judge provider of an llm_judge: the evaluator's own target, else the
// --judge-target override (an explicit choice wins over the targets file, as --target does),
// else the target's judge_target, else the target itself.
func (p *planner) judge(t *providers.Target, override string) (providers.Provider, error) {
	name := override
	if name == "" {
		name = strings.TrimSpace(p.e.Cfg.JudgeTarget)
	}
	if name == "" {
		name = t.JudgeTarget
	}
	if name == "" {
		name = t.Name
	}
	p.mu.Lock()
	var tf *providers.TargetsFile
	for _, f := range p.files {
		for _, x := range f.Targets {
			if x == t {
				tf = f
			}
		}
	}
	p.mu.Unlock()
	if tf == nil {
		return nil, fmt.Errorf("judge target %q: targets file of %q not found", name, t.Name)
	}
	pr, err := p.build(tf, name)
	if err != nil {
		return nil, fmt.Errorf("judge target %q: %w", name, err)
	}
	return pr, nil
}

// checkJudges builds the judge providers a case will need, so a judge target that does not
// exist or lacks its secret is a configuration problem found before anything runs.
func (p *planner) checkJudges(t *providers.Target, c *suite.Case) error {
	needDefault := len(c.Evaluators) == 0
	for _, ev := range c.Evaluators {
		if ev.Type == suite.TypeLLMJudge {
			if _, err := p.judge(t, ev.Target); err != nil {
				return fmt.Errorf("evaluator %q: %w", ev.Name, err)
			}
		}
	}
	if needDefault {
		if _, err := p.judge(t, ""); err != nil {
			return err
		}
	}
	return nil
}

// caseWarnings groups warnings that name a case by case id.
func caseWarnings(ds []suite.Diagnostic, display func(string) string) map[string][]results.Warning {
	out := map[string][]results.Warning{}
	for _, d := range ds {
		if d.CaseID == "" || d.IsError() {
			continue
		}
		out[d.CaseID] = append(out[d.CaseID], results.Warning{File: display(d.File), Line: d.Line, Col: d.Col, Kind: d.Kind, Message: d.Message})
	}
	return out
}

// display returns the path shown in records, diagnostics and reports: relative to the
// workspace (the repository) when one is set and holds the file, so results files, links and
// annotations agree whatever working directory the run used; else the path as loaded
// (relative to the working directory).
func (e *Engine) display(p string) string {
	ws := e.Cfg.Workspace
	if ws == "" || p == "" {
		return p
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(e.Cfg.Cwd, p)
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}
