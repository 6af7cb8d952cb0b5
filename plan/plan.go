// Package plan is the plan stage: each case's target and judge, one provider per target of a
// targets file, and the fork skip (a target needs a secret that is not set).
package plan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"

	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/config"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
	"github.com/agentv/action/workspace"
)

// Options are the run's settings and what the planner needs from the command.
type Options struct {
	config.Settings
	Redactor *redact.Redactor
	Logf     func(format string, args ...any)
	// Display returns the path shown to the user for a file path.
	Display func(string) string
	// Check refuses an input (what names it) that is an output of the run; nil checks nothing.
	Check func(path, what string) error
	Cache *cache.Store // nil: no response cache
	// Select, when set, is a further choice of cases (AgentV 4.x's --test-id and --tag, the
	// cases a rerun runs again), made with --eval-id's.
	Select func(c *suite.Case) bool
	// ByID, when set, is the part of Select that chooses cases by id (4.x's --test-id): with
	// --eval-id, what decides whether a test's dependency is left out of the run.
	ByID func(c *suite.Case) bool
	// SelectOn, when set, chooses the targets a selected case runs on (4.x's --rerun-failed
	// runs a test again only where it did not pass).
	SelectOn func(c *suite.Case, target string) bool
}

// targetKey identifies one provider instance: a target of one targets file.
type targetKey struct{ file, name string }

// Planner binds cases to providers. Job runs on one goroutine; Judge may be called from
// running cases meanwhile.
type Planner struct {
	opts       Options
	files      map[string]*targets.File
	reported   map[string]bool // targets files whose diagnostics are in diags
	notices    []string
	dotenvSeen map[string]bool // .env files left unread (NoDotenv), already noticed
	providers  map[targetKey]providers.Provider
	errs       map[targetKey]error
	mu         sync.Mutex
	diags      []suite.Diagnostic
	unset      []*targets.UnsetVarError
	targets    map[string]bool

	// workspaces are made when a suite's first case is planned; Close removes them.
	workspaces map[*suite.Suite]madeWorkspace
	caseDirs   []string // the tests' own directories (suite.Workspace.PerCase); Close removes them
	runID      string

	// leftOut holds why no test of a file with dependencies runs (see CheckSelection).
	leftOut map[*suite.Suite]string

	// onSeveral holds the eval files whose cases run on several targets (OnSeveralTargets).
	onSeveral sync.Map

	// inline holds the targets each eval file defines itself (inline.go), inlineOf the reverse.
	inline   map[*suite.Suite]*targets.File
	inlineOf map[*targets.File]*suite.Suite

	// last caches what every case of one eval file shares (planning runs on one goroutine).
	last struct {
		s       *suite.Suite
		display string
		tf      *targets.File
		err     error
	}
}

// New returns a planner with nothing loaded yet.
func New(opts Options) *Planner {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Display == nil {
		opts.Display = func(p string) string { return p }
	}
	if opts.Check == nil {
		opts.Check = func(string, string) error { return nil }
	}
	if opts.Shard != nil {
		sh := *opts.Shard // Balance cuts this run's copy
		opts.Shard = &sh
	}
	return &Planner{opts: opts, files: map[string]*targets.File{}, providers: map[targetKey]providers.Provider{},
		errs: map[targetKey]error{}, targets: map[string]bool{},
		reported: map[string]bool{}, dotenvSeen: map[string]bool{},
		inline: map[*suite.Suite]*targets.File{}, inlineOf: map[*targets.File]*suite.Suite{},
		workspaces: map[*suite.Suite]madeWorkspace{}, runID: strconv.FormatInt(time.Now().UnixNano(), 36)}
}

// Jobs binds one case to the providers of its targets: one job, or, when the suite names
// several targets (AgentV 4.x's `execution.targets`) and --target does not pick one, a job per
// target, each target's record naming it. Nil when the run's selection leaves the case out.
func (p *Planner) Jobs(s *suite.Suite, c *suite.Case, warns []suite.Diagnostic) []*Job {
	if !p.Selected(c) {
		return nil
	}
	names, several, why := p.runsOn(s, c)
	if several {
		// The file as records show it; p.last may still be an earlier file's when no job is made.
		p.onSeveral.Store(p.opts.Display(s.Path), struct{}{})
	}
	if why != "" {
		p.forSuite(s)
		return []*Job{{Case: c, File: p.last.display, Warnings: warns, Err: errors.New(why)}}
	}
	jobs := make([]*Job, 0, len(names))
	for _, n := range names {
		jobs = append(jobs, p.job(s, c, warns, n))
	}
	return jobs

}

// Runs returns how many jobs Jobs makes for the case, without building them.
func (p *Planner) Runs(s *suite.Suite, c *suite.Case) int {
	if !p.Selected(c) {
		return 0
	}
	if names, _, why := p.runsOn(s, c); why == "" {
		return len(names)
	}
	return 1 // one error record
}

// runsOn returns the targets the case runs on, whether its suite runs on several, and why it
// runs nowhere instead (a left-out dependency; a test's own `execution.targets` keeps those of
// the suite's it lists, and may list none).
func (p *Planner) runsOn(s *suite.Suite, c *suite.Case) (names []string, several bool, why string) {
	if why := p.leftOutDependency(s); why != "" {
		return nil, false, why
	}
	matrix := p.matrix(s)
	if matrix == nil {
		if name := p.targetName(s, c); p.selectedOn(c, name) {
			return []string{name}, false, ""
		}
		return nil, false, ""
	}
	listed := 0
	for _, n := range matrix {
		if len(c.Targets) == 0 || slices.Contains(c.Targets, n) {
			listed++
			if p.selectedOn(c, n) {
				names = append(names, n)
			}
		}
	}
	if listed == 0 {
		whose := "the suite's targets"
		if len(p.opts.Targets) > 1 {
			whose = "the --target targets"
		}
		why = fmt.Sprintf("the test's execution targets (%s) name none of %s (%s), so it runs nowhere",
			strings.Join(c.Targets, ", "), whose, strings.Join(matrix, ", "))
	}
	return names, len(matrix) > 1, why
}

// CheckSelection notes whether the run leaves out a dependency of the cases of s it chooses
// by id (--eval-id, --test-id); call it with the file's cases before planning them. AgentV
// 4.42.4 checks the dependencies of the tests its --test-id keeps (orchestrator.ts:944) and
// refuses the whole file when one is missing (orchestrator.ts:262): each of its tests is then
// an error record, and so it is here. A JSONL file's cases, planned as they are read, are
// not checked.
func (p *Planner) CheckSelection(s *suite.Suite, cases []*suite.Case) {
	if !s.Dependencies || p.opts.EvalID == "" && p.opts.ByID == nil {
		return
	}
	byID := make(map[string]*suite.Case, len(cases))
	for _, c := range cases {
		byID[c.ID] = c
	}
	why := ""
cases:
	for _, c := range cases {
		for _, dep := range c.DependsOn {
			if dc := byID[dep]; dc != nil && p.chosenByID(c) && !p.chosenByID(dc) {
				why = fmt.Sprintf("test %q depends on %q, which --eval-id or --test-id leaves out; as in AgentV 4.42.4, no test of %s runs",
					c.ID, dep, p.opts.Display(s.Path))
				break cases
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leftOut == nil {
		p.leftOut = map[*suite.Suite]string{}
	}
	p.leftOut[s] = why
}

// leftOutDependency returns why no test of s runs (see CheckSelection), "" when they do.
func (p *Planner) leftOutDependency(s *suite.Suite) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leftOut[s]
}

// chosenByID reports whether --eval-id and --test-id (if given) choose the case.
func (p *Planner) chosenByID(c *suite.Case) bool { return p.matches(c, p.opts.ByID) }

// madeWorkspace is a suite's workspace directory, or why it could not be made.
type madeWorkspace struct {
	dir      string
	err      error
	finished bool // its after_all hook ran
}

// workspace returns the directory the suite's tests run in ("" without `workspace`), made
// (template copied, before_all run) when its first case is planned.
func (p *Planner) workspace(s *suite.Suite) (string, error) {
	if s.Workspace == nil {
		return "", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.workspaces[s]; ok {
		return w.dir, w.err
	}
	dir, err := workspace.Create(context.Background(), s.Workspace, s.Dir, p.workspaceOptions())
	if err != nil {
		err = fmt.Errorf("%s: %w", s.Path, err)
	} else {
		p.opts.Logf("workspace of %s: %s", s.Path, dir)
	}
	p.workspaces[s] = madeWorkspace{dir: dir, err: err}
	return dir, err
}

// caseWorkspace makes the directory of one job in a workspace whose tests each have their own.
func (p *Planner) caseWorkspace(shared string) (string, error) {
	dir, err := workspace.CreateCase(context.Background(), shared, p.workspaceOptions())
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	p.caseDirs = append(p.caseDirs, dir)
	p.mu.Unlock()
	return dir, nil
}

// FinishWorkspaces runs each workspace's after_all hook once every job has run. A failure is
// a warning of the run, as AgentV 4.42.4 always prints it (orchestrator.ts:1426,
// script-executor.ts:86).
func (p *Planner) FinishWorkspaces() []suite.Diagnostic {
	p.mu.Lock()
	defer p.mu.Unlock()
	var warns []suite.Diagnostic
	for s, w := range p.workspaces {
		if w.dir == "" || w.finished {
			continue
		}
		w.finished = true
		p.workspaces[s] = w
		if err := workspace.Finish(context.Background(), s.Workspace, w.dir, s.Dir, p.workspaceOptions()); err != nil {
			warns = append(warns, suite.Diagnostic{File: p.opts.Display(s.Path), Line: s.Workspace.AfterAll.Line,
				Severity: suite.SeverityWarning, Kind: "hook", Message: p.opts.Redactor.String(err.Error())})
		}
	}
	suite.SortDiagnostics(warns)
	return warns
}

// Close runs the after_all hooks FinishWorkspaces has not run (a run cut short: a failure is a
// --verbose line) and removes the workspaces.
func (p *Planner) Close() error {
	for _, d := range p.FinishWorkspaces() {
		p.opts.Logf("warning: %s", d.Error())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for s, w := range p.workspaces {
		if w.dir != "" {
			errs = append(errs, workspace.Remove(w.dir))
		}
		delete(p.workspaces, s)
	}
	for _, d := range p.caseDirs {
		errs = append(errs, workspace.Remove(d))
	}
	p.caseDirs = nil
	return errors.Join(errs...)
}

func (p *Planner) workspaceOptions() workspace.Options {
	return workspace.Options{RunID: p.runID, Env: p.opts.Environ}
}

// selectedOn reports whether a selected case runs on target name (see Options.SelectOn).
func (p *Planner) selectedOn(c *suite.Case, name string) bool {
	return p.opts.SelectOn == nil || p.opts.SelectOn(c, name)
}

// matrix returns the targets every case of s runs on, nil when each runs on one. Several
// --target flags win over the suite's targets, as in 4.42.4 (run-eval.ts:764).
func (p *Planner) matrix(s *suite.Suite) []string {
	if len(p.opts.Targets) > 1 {
		return p.opts.Targets
	}
	if t := strings.TrimSpace(p.opts.Target); t != "" && t != "default" {
		return nil
	}
	if len(s.Targets) < 2 {
		return nil
	}
	return slices.Compact(slices.Clone(s.Targets))
}

// job binds one case to the provider of target name.
func (p *Planner) job(s *suite.Suite, c *suite.Case, warns []suite.Diagnostic, name string) *Job {
	p.forSuite(s)
	j := &Job{Case: c, File: p.last.display, Warnings: warns, Target: name}
	if j.Err = p.checkReferences(c); j.Err != nil {
		return j
	}
	if j.Workspace, j.Err = p.workspace(s); j.Err != nil {
		return j
	}
	if j.Workspace != "" && s.Workspace.PerCase {
		if j.Workspace, j.Err = p.caseWorkspace(j.Workspace); j.Err != nil {
			return j
		}
	}
	j.RunID = p.runID
	j.Provider, j.Err = p.provider(s, name)
	if j.Err == nil {
		j.Err = p.checkJudges(j.Provider.Target(), c)
	}
	return j
}

// OnSeveralTargets reports whether the eval file (as records show it) runs its cases on more
// than one target: decided per file, so a progress line names its target or not the same way
// in every run. Safe to call while planning.
func (p *Planner) OnSeveralTargets(file string) bool {
	_, ok := p.onSeveral.Load(file)
	return ok
}

// Selected reports whether the run selects the case: --eval-id (if given) and the shard.
func (p *Planner) Selected(c *suite.Case) bool {
	return p.SelectedByID(c) && (p.opts.Shard == nil || p.opts.Shard.Has(c))
}

// Shard returns the run's shard, nil when the run is whole.
func (p *Planner) Shard() *config.Shard { return p.opts.Shard }

// SelectedByID reports whether --eval-id (if given) selects the case, whatever its shard.
func (p *Planner) SelectedByID(c *suite.Case) bool { return p.matches(c, p.opts.Select) }

// matches reports whether --eval-id (if given) and also (if set) choose the case.
func (p *Planner) matches(c *suite.Case, also func(*suite.Case) bool) bool {
	if id := p.opts.EvalID; id != "" {
		if ok, _ := doublestar.Match(id, c.ID); !ok {
			return false
		}
	}
	return also == nil || also(c)
}

// SkipReason returns why the run is skipped, led by why: a target needs a variable that is not
// set (secrets are withheld from fork pull requests); "" when none is missing.
func (p *Planner) SkipReason(why string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.unset) == 0 {
		return ""
	}
	u := p.unset[0]
	need := fmt.Sprintf("target %q needs %s, which is not set", u.Target, u.Var)
	if why := strings.TrimSpace(why); why != "" {
		need = why + ": " + need
	}
	return need + "; secrets are not passed to workflows triggered from forks, so no case ran"
}

// Found returns what planning found: targets files' and providers' diagnostics, notices (.env
// files left unread), and the targets built, sorted.
func (p *Planner) Found() (diags []suite.Diagnostic, notices, targets []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.diags), slices.Clone(p.notices), slices.Sorted(maps.Keys(p.targets))
}

// targetName picks the case's target: override, case, suite, "default".
func (p *Planner) targetName(s *suite.Suite, c *suite.Case) string {
	if t := strings.TrimSpace(p.opts.Target); t != "" && t != "default" {
		return t
	}
	if len(s.Targets) > 0 { // one target in `execution.targets` is the suite's target
		return cmp.Or(c.Target, s.Targets[0])
	}
	return cmp.Or(c.Target, s.Target, "default")
}

// errOwnTargets is the targets file of a suite that defines all its targets (a promptfoo
// config): a target it does not define is not found.
var errOwnTargets = errors.New("the file defines its targets itself (promptfoo providers); no targets file is read")

func (p *Planner) targetsFile(s *suite.Suite) (*targets.File, error) {
	if s.OwnTargets {
		return nil, errOwnTargets
	}
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
func (p *Planner) loadTargets(dir, repoRoot string) (*targets.File, error) {
	cfg := &p.opts
	path, err := targets.FindFile(cfg.TargetsPath, dir, repoRoot, cfg.Cwd)
	if err != nil {
		return nil, err
	}
	if err := p.opts.Check(path, "targets file"); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(path)
	// Judges look targets files up from running cases while the stream is still planning.
	p.mu.Lock()
	defer p.mu.Unlock()
	if tf, ok := p.files[abs]; ok {
		return tf, nil
	}
	envDir := dir
	if cfg.NoDotenv {
		envDir = ""
		for _, f := range targets.DotenvFiles(dir, repoRoot) {
			if !p.dotenvSeen[f] {
				p.dotenvSeen[f] = true
				p.notices = append(p.notices, fmt.Sprintf("%s was not read: .env files are for local runs; under GitHub Actions, pass secrets through the workflow's env", p.opts.Display(f)))
			}
		}
	}
	tf := targets.LoadWithEnv(path, cfg.Environ, envDir, repoRoot, p.opts.Redactor)
	p.files[abs] = tf
	return tf, nil
}

// Preload loads every eval file's targets file before any case runs, so every secret they
// reference is masked from the first output on: a child process may print a variable of a
// target that runs later, or never. Problems are reported when a case needs the file.
func (p *Planner) Preload(files []string) {
	cfg := &p.opts
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

// forSuite fills p.last for s: its display path and targets file, once per file.
func (p *Planner) forSuite(s *suite.Suite) {
	if p.last.s == s {
		return
	}
	p.last.s, p.last.display = s, p.opts.Display(s.Path)
	p.last.tf, p.last.err = p.targetsFile(s)
}

// provider returns the (shared) provider of the case's target.
func (p *Planner) provider(s *suite.Suite, name string) (providers.Provider, error) {
	p.forSuite(s)
	tf, err := p.last.tf, p.last.err
	if f := p.definedIn(s, name, tf, err); f != nil {
		return p.build(f, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	if suite.HasErrors(tf.Diagnostics) {
		return nil, fmt.Errorf("targets file %s has errors", tf.Path)
	}
	return p.build(tf, name)
}

func (p *Planner) build(tf *targets.File, name string) (providers.Provider, error) {
	return p.cached(targetKey{tf.Abs, name}, name, func() (providers.Provider, error) {
		t, err := tf.Find(name)
		if err != nil {
			return nil, err
		}
		return p.constructTarget(t)
	})
}

// cached returns the provider made once under key (or the error making it gave, an unset
// variable noted for SkipReason); name is the target Found lists.
func (p *Planner) cached(key targetKey, name string, make func() (providers.Provider, error)) (providers.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr, ok := p.providers[key]; ok {
		return pr, nil
	}
	if err, ok := p.errs[key]; ok {
		return nil, err
	}
	pr, err := make()
	if err != nil {
		var uv *targets.UnsetVarError
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

func (p *Planner) constructTarget(t *targets.Target) (providers.Provider, error) {
	cfg := &p.opts
	if cfg.DryRun {
		return providers.DryRun(t, cfg.DryRunDelay, cfg.DryRunMin, cfg.DryRunMax), nil
	}
	pr, warns, err := providers.New(t, providers.Options{
		Verbose: cfg.Verbose, Timeout: cfg.Timeout, Env: proc.ChildEnv(cfg.Environ, nil, t.ReferencedVars()...),
		Logf: p.opts.Logf,
	})
	p.diags = append(p.diags, warns...)
	if err != nil {
		return nil, err
	}
	return cfg.Cache.Wrap(pr)
}

// Judge resolves the judge provider of an llm_judge: the evaluator's own target, else the
// --judge-target override (an explicit choice wins over the targets file, as --target does),
// else the target's judge_target, else the target itself. With --model (`--grader-target
// agentv`), the override is the built-in grader of that model.
func (p *Planner) Judge(t *targets.Target, override string) (providers.Provider, error) {
	p.mu.Lock()
	var tf *targets.File
	for _, f := range p.files {
		for _, x := range f.Targets {
			if x == t {
				tf = f
			}
		}
	}
	var defined *suite.Suite // t is defined in this eval file
	for f, s := range p.inlineOf {
		for _, x := range f.Targets {
			if x == t {
				tf, defined = f, s
			}
		}
	}
	p.mu.Unlock()
	builtin := override == "" && p.opts.JudgeModel != ""
	name := override
	if builtin {
		name = targets.BuiltinGraderName
	}
	name = cmp.Or(name, strings.TrimSpace(p.opts.JudgeTarget), t.JudgeTarget, t.Name)
	if tf == nil {
		return nil, fmt.Errorf("judge target %q: targets file of %q not found", name, t.Name)
	}
	var pr providers.Provider
	var err error
	switch {
	case builtin:
		pr, err = p.builtinJudge(tf, t)
	case defined != nil:
		pr, err = p.inlineJudge(defined, name)
	default:
		pr, err = p.build(tf, name)
	}
	if err != nil {
		return nil, fmt.Errorf("judge target %q: %w", name, err)
	}
	return pr, nil
}

// builtinJudge returns the provider of `--grader-target agentv --model PROVIDER:MODEL`, one per
// targets file: its key comes from that file's environment (.env files included).
func (p *Planner) builtinJudge(tf *targets.File, t *targets.Target) (providers.Provider, error) {
	// The NUL keeps it apart from a targets file entry that happens to be called agentv.
	key := targetKey{tf.Abs, "\x00" + targets.BuiltinGraderName}
	return p.cached(key, targets.BuiltinGraderName, func() (providers.Provider, error) {
		bt, err := targets.BuiltinGrader(p.opts.JudgeModel, t.Env, p.opts.Redactor)
		if err != nil {
			return nil, err
		}
		return p.constructTarget(bt)
	})
}

// checkJudges builds the judges a case needs, so a missing judge target or secret is found
// before anything runs.
func (p *Planner) checkJudges(t *targets.Target, c *suite.Case) error {
	for _, ev := range c.Evaluators {
		if ev.Type == suite.TypeLLMJudge {
			if _, err := p.Judge(t, ev.Target); err != nil {
				return fmt.Errorf("evaluator %q: %w", ev.Name, err)
			}
		}
	}
	if len(c.Evaluators) == 0 {
		_, err := p.Judge(t, "")
		return err
	}
	return nil
}

// checkReferences checks the files a case reads (guidelines, input files, judge prompts and
// scripts) against the run's outputs.
func (p *Planner) checkReferences(c *suite.Case) error {
	check := p.opts.Check
	for _, f := range c.GuidelinePaths {
		if err := check(f, "guideline file"); err != nil {
			return err
		}
	}
	for _, f := range c.InputFiles {
		if err := check(f, "input file"); err != nil {
			return err
		}
	}
	return checkEvaluators(check, c.Evaluators)
}

func checkEvaluators(check func(path, what string) error, evs []*suite.EvaluatorSpec) error {
	for _, ev := range evs {
		var paths []string
		if pr := ev.Prompt; pr != nil {
			paths = append(append(paths, pr.Path), pr.Script...)
		}
		paths = append(paths, ev.Script...)
		for _, f := range paths {
			if !filepath.IsAbs(f) && ev.Cwd != "" {
				f = filepath.Join(ev.Cwd, f)
			}
			if err := check(f, "file of evaluator "+strconv.Quote(ev.Name)); err != nil {
				return err
			}
		}
		if err := checkEvaluators(check, ev.Members); err != nil {
			return err
		}
	}
	return nil
}

// CaseWarnings groups the warnings that name cases by case id (each of AlsoCases too), files
// shown by display, without the case id (the record names it).
func CaseWarnings(ds []suite.Diagnostic, display func(string) string) map[string][]suite.Diagnostic {
	out := map[string][]suite.Diagnostic{}
	for _, d := range ds {
		if d.CaseID == "" || d.IsError() {
			continue
		}
		w := suite.Diagnostic{File: display(d.File), Line: d.Line, Col: d.Col, Kind: d.Kind, Message: d.Message}
		out[d.CaseID] = append(out[d.CaseID], w)
		for _, id := range d.AlsoCases {
			out[id] = append(out[id], w)
		}
	}
	return out
}
