package main

import (
	"cmp"
	"context"

	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentv/action/action"
	"github.com/agentv/action/cache"
	"github.com/agentv/action/compare"
	"github.com/agentv/action/config"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/history"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// forkRecipe tells users how to evaluate fork pull requests.
const forkRecipe = "To evaluate pull requests from forks, run the evals in a `pull_request` workflow without secrets " +
	"only when they are available, or split the job: a `pull_request` run uploads results.jsonl and the PR number as an " +
	"artifact, and a `workflow_run` workflow on the default branch downloads it, validates the PR number, and runs this " +
	"action with `mode: report` (see docs/action.md)."

// runAction runs the binary as the GitHub Action (no subcommand, GITHUB_ACTIONS=true).
func (c *Command) runAction(ctx context.Context) int {
	env := action.LoadEnv(c.Getenv)
	red := &redact.Redactor{}
	cmds := action.NewCommands(c.Stdout, red)
	in, inErrs := action.ParseInputs(c.Getenv)
	red.Add(in.GitHubToken)
	if in.Shard != nil && in.Mode == action.ModeRun {
		// One comment per pull request: the job that merges the shards posts it.
		in.Comment = action.CommentOff
	}
	ev, evErr := action.LoadEvent(c.Getenv)
	if evErr != nil {
		cmds.Message(action.LevelWarning, "", "could not read the event payload: "+evErr.Error())
	}

	gh := c.github(in, ev, cmds)
	workspace := gh.workspace
	wd := workspace
	if in.WorkDir != "" {
		wd = filepath.Join(workspace, in.WorkDir)
	}
	resultsDir := absIn(workspace, in.ResultsDir)
	invalid := func(problems ...string) int {
		out := &Outcome{Problems: problems}
		return gh.publish(ctx, &finished{run: buildRun(out, in.Gate), out: out, dir: resultsDir})
	}
	if len(inErrs) > 0 {
		var problems []string
		for _, e := range inErrs {
			problems = append(problems, e.Error())
		}
		return invalid(problems...)
	}

	tmp := ""
	if in.BaselinePath == action.BaselineAuto {
		if d, err := os.MkdirTemp(env.RunnerTemp, "agentv-baseline-"); err == nil {
			tmp = d
			defer os.RemoveAll(d)
		}
	}
	baselinePath, baselineSource := actionBaseline(ctx, in, env, ev, c.Getenv, workspace, tmp, cmds)
	gh.history = actionHistory(ctx, in, env, ev, c.Getenv, cmds)

	otel, err := otelOutputs(&in.Settings, workspace, c.Getenv, c.Stdout, red)
	if err != nil {
		return invalid(err.Error())
	}
	if in.Mode == action.ModeReport {
		paths, err := expandResults(workspace, in.ResultsFiles())
		if err != nil {
			return invalid("input results: " + err.Error())
		}
		cmpr, note, berr := loadBaseline(baselinePath, workspace, baselineSource, in.Gate.RegressionMargin)
		if note != "" {
			cmds.Message(action.LevelNotice, "agentv baseline", note)
		}
		out := readResults(paths, resultsDir, workspace, "the results-dir input", in.Details, in.Gate, cmpr)
		defer out.Close()
		if berr != nil {
			out.Problems = append(out.Problems, berr.Error())
		}
		for i, p := range out.Problems {
			out.Problems[i] = red.String(p)
		}
		// The problems are redacted before a merge's results file records them, and the
		// file's path is known once it is committed (or dropped).
		return gh.publish(ctx, &finished{run: finishRun(out, in.Gate, red), out: out, dir: resultsDir}, otel...)
	}

	environ := c.Environ
	// The github-token input is available to targets as ${{ GITHUB_TOKEN }} (GitHub Models).
	if in.GitHubToken != "" && c.Getenv("GITHUB_TOKEN") == "" {
		environ = append(append([]string(nil), environ...), "GITHUB_TOKEN="+in.GitHubToken)
	}
	cfg := EvalConfig{Settings: in.Settings,
		Out: filepath.Join(resultsDir, "results.jsonl"), OutName: "the results-dir input", Details: in.Details,
		SkipOnUnsetSecret: ev.SecretsWithheld(),
		SkipReason:        "this pull request comes from a fork (or Dependabot)",
		BaselineSource:    baselineSource,
	}
	cfg.Cwd, cfg.Workspace, cfg.Environ, cfg.NoDotenv = wd, workspace, environ, true
	cfg.BaselinePath, cfg.CacheDir = baselinePath, absIn(workspace, in.CacheDir)
	if cfg.TargetsPath != "" && !filepath.IsAbs(cfg.TargetsPath) {
		cfg.TargetsPath = filepath.Join(wd, cfg.TargetsPath)
	}
	cmds.Group("agentv: running evals")
	out := c.engine(cfg, red, cmds).Run(ctx)
	cmds.EndGroup()
	defer out.Close()

	if cfg.Cache == cache.ReadWrite && !cfg.DryRun {
		// The entries are root's like every file the container writes; the cache folder is
		// in the workspace (actions/cache saves it), so it goes to the workspace's owner too.
		_ = action.ChownToWorkspaceOwner(workspace, cfg.CacheDir)
	}
	return gh.publish(ctx, &finished{run: finishRun(out, cfg.Gate, red), out: out, dir: resultsDir}, otel...)
}

// absIn returns p, relative to dir unless absolute.
func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// github is what the GitHub surfaces of a run need.
type github struct {
	c         *Command
	env       action.Env
	in        action.Inputs
	ev        action.Event
	cmds      *action.Commands
	workspace string           // the job's workspace: annotations and step outputs name files relative to it
	history   *history.History // earlier runs (the history input), nil without
}

func (c *Command) github(in action.Inputs, ev action.Event, cmds *action.Commands) *github {
	env := action.LoadEnv(c.Getenv)
	return &github{c: c, env: env, in: in, ev: ev, cmds: cmds, workspace: cmp.Or(env.Workspace, c.Cwd)}
}

// publish delivers a finished run to the outputs given first, then to every surface of a
// GitHub job, and returns the exit code.
func (g *github) publish(ctx context.Context, f *finished, first ...output) int {
	run := f.run
	run.Details = g.in.Details
	run.Links = report.Links{ServerURL: g.env.ServerURL, Repo: g.env.Repository, SHA: cmp.Or(g.ev.HeadSHA, g.env.SHA),
		RunURL: g.env.RunURL(), Artifacts: g.env.ArtifactsURL(), Artifact: g.in.BaselineArtifact}
	if g.history != nil {
		run.SetHistory(g.history, history.Run{Label: "this run", URL: g.env.RunURL()})
	}
	// Record and diagnostic paths are already workspace-relative (Engine.display), also in a
	// results file another step wrote: links and annotations use them as they are.
	marker := g.env.CommentMarker(g.in.CommentKey)
	f.say = g.cmds.Message
	c := g.c
	deliver(ctx, f, append(first, reportWriter{marker: marker}, console{stdout: c.Stdout, stderr: c.Stderr},
		jobSummary{g}, annotations{g}, prComment{g, marker}, stepOutputs{g})...)
	_ = action.ChownToWorkspaceOwner(g.workspace, f.dir)
	return run.Decision.Outcome.ExitCode(g.in.FailOnSkip)
}

// jobSummary appends the summary to the step summary file.
type jobSummary struct{ *github }

func (o jobSummary) deliver(_ context.Context, f *finished) {
	// The step summary file may hold an earlier run's summary already; the limit is the
	// file's, so this one gets the room that is left (less the newline Append may add).
	sum := action.Summary{Path: o.env.SummaryPath}
	if err := sum.Append(report.SummaryWithin(f.run, sum.Room()-1)); err != nil {
		f.say(action.LevelWarning, "", "could not write the job summary: "+err.Error())
	}
}

// annotations annotates failing cases, regressions and diagnostics at their file and line,
// and says why a run was invalid or skipped.
type annotations struct{ *github }

func (o annotations) deliver(_ context.Context, f *finished) {
	run := f.run
	// Passing cases get no annotations. Failing cases keep their records as far as the
	// annotation caps reach (NewCollector's keepWorst); the others are only counted.
	var recs []results.Record
	omitted := 0
	for _, cs := range run.Cases {
		switch {
		case cs.Record != nil:
			recs = append(recs, *cs.Record)
		case cs.Verdict != results.VerdictPass:
			omitted++
		}
	}
	regs, gated := regressions(run)
	o.cmds.Annotate(action.BuildAnnotations(f.out.Diagnostics, recs, regs, gated, action.AnnotationOptions{
		Workspace: o.workspace, WorkDir: o.workspace, Details: o.in.Details}), omitted)
	if run.Decision.Outcome == gate.Invalid {
		// Input and configuration problems often have no file position to annotate.
		f.say(action.LevelError, "agentv invalid run", run.Decision.Reason)
	}
	if run.Decision.Outcome == gate.Skipped {
		f.say(action.LevelNotice, "agentv skipped", run.Decision.Reason+". "+forkRecipe)
	}
}

// stepOutputs sets the step's outputs: the outcome, its counts, and where the files are.
type stepOutputs struct{ *github }

func (o stepOutputs) deliver(_ context.Context, f *finished) {
	run, counts := f.run, f.run.Counts
	rel := func(name string) string {
		return action.WorkspacePath(o.workspace, o.workspace, filepath.Join(f.dir, name))
	}
	ro := action.RunOutputs{
		Outcome: run.Decision.Outcome, Total: counts.Total, Passed: counts.Passed, Failed: counts.Failed,
		Errors: counts.Errors, MeanScore: counts.MeanScore, CommentURL: f.commentURL, Flaky: report.Flaky(run),
		JUnitPath: rel("junit.xml"), SummaryPath: rel("summary.md"),
	}
	if b := run.Baseline; b != nil {
		ro.Compared, ro.Regressions, ro.Improvements = true, b.Count(compare.Regressed), b.Count(compare.Improved)
		ro.MeanScoreDelta = b.Mean.Estimate
	}
	if run.Decision.Outcome == gate.Skipped {
		ro.Skipped = counts.Skipped
	}
	if counts.Total > 0 {
		ro.PassRate = float64(counts.Passed) / float64(counts.Total)
	}
	switch resultsPath := f.out.ResultsPath; {
	case f.out.merged && resultsPath == "": // the merge's results file was not written
	case resultsPath != "":
		ro.ResultsPath = action.WorkspacePath(o.workspace, o.workspace, resultsPath)
	default:
		ro.ResultsPath = rel("results.jsonl")
	}
	if err := (action.Outputs{Path: o.env.OutputPath}).SetAll(ro.Pairs()); err != nil {
		f.say(action.LevelWarning, "", "could not write step outputs: "+err.Error())
	}
}

// prComment creates or updates the sticky PR comment; a failure is a warning, never a lost
// report.
type prComment struct {
	*github
	marker string
}

func (o prComment) deliver(ctx context.Context, f *finished) {
	pr := o.in.PR(o.ev)
	if pr <= 0 || o.in.Comment == action.CommentOff || o.in.Comment == "" {
		return
	}
	if o.ev.SecretsWithheld() && o.in.PRNumber == 0 {
		// A fork's token is read-only: a comment would fail with 403.
		f.say(action.LevelNotice, "", "no PR comment: the token of a fork pull request cannot write comments (see the job summary)")
		return
	}
	if o.in.GitHubToken == "" {
		f.say(action.LevelWarning, "", "no PR comment: the github-token input is empty")
		return
	}
	store, err := action.NewGitHubStore(o.in.GitHubToken, o.env.APIURL, o.env.Repository)
	if err != nil {
		f.say(action.LevelWarning, "", "no PR comment: "+err.Error())
		return
	}
	run := f.run
	url, err := action.Upsert(ctx, store, pr, o.marker, report.Comment(run, o.marker), o.in.Comment, run.Decision.Outcome,
		len(run.Diagnostics) > 0)
	if err != nil {
		f.say(action.LevelWarning, "PR comment not updated", err.Error())
		return
	}
	f.commentURL = url
}

// engine returns an Engine for cfg with progress on stderr (buffered for at most
// progressFlush). --verbose logs carry model text, so each is made safe: under GitHub Actions
// (cmds set) the first line is flattened and the rest fenced by Verbatim, elsewhere every line
// is flattened behind the "agentv:" prefix.
func (c *Command) engine(cfg EvalConfig, red *redact.Redactor, cmds *action.Commands) *Engine {
	var done int
	pw := newProgressWriter(c.Stderr)
	e := &Engine{
		Cfg: cfg, Redactor: red,
		Logf: func(format string, args ...any) {
			if !cfg.Verbose {
				return
			}
			head, body := splitFirstLine(red.String(fmt.Sprintf(format, args...)))
			if cmds != nil {
				cmds.Verbatim("agentv: "+head, body)
				return
			}
			var b strings.Builder
			b.WriteString("agentv: " + logtext.Line(head) + "\n")
			if body = strings.TrimRight(logtext.Block(body), "\n"); body != "" {
				for _, line := range strings.Split(body, "\n") {
					b.WriteString("agentv:   " + logtext.Line(line) + "\n")
				}
			}
			_, _ = io.WriteString(pw, b.String())
		},
		Starting: func(files, total, trials int, shard *config.Shard) {
			head := "agentv: running "
			cases := "cases (counted as the JSONL files are read)"
			switch {
			case shard != nil && total >= 0:
				// A shard's count alone reads as the whole suite's: say which part of what.
				_, all := shard.Plan()
				head = fmt.Sprintf("agentv: shard %s: running ", shard)
				cases = fmt.Sprintf("%d of %d %s", total, all, textfmt.Plural(all, "case", "cases"))
			case shard != nil:
				head = fmt.Sprintf("agentv: shard %s: running ", shard)
			case total >= 0:
				cases = fmt.Sprintf("%d %s", total, textfmt.Plural(total, "case", "cases"))
			}
			switch {
			case trials > 1:
				cases += fmt.Sprintf(" × %d trials", trials)
			case trials == 0:
				cases += ", some with several trials,"
			}
			fmt.Fprintf(pw, "%s%s from %d eval %s\n", head, cases, files, textfmt.Plural(files, "file", "files"))
			pw.flush() // something on screen before the first case finishes
		},
		Stopping: func() {
			fmt.Fprintln(pw, "agentv: stopping: cancelling the running cases, then writing the reports (the outcome will be cancelled)")
			pw.flush()
		},
		Done: pw.Close,
	}
	var lines report.ProgressLines // a target's error once, not on every case of it
	e.Handler = func(rec *results.Record) {
		done++ // handler calls are serialized by the runner
		lines.Print(pw, rec, done, e.Total(), e.OnSeveralTargets(rec))
	}
	return e
}

// splitFirstLine returns the first line of s and the rest, at any kind of line break.
func splitFirstLine(s string) (head, rest string) {
	i := strings.IndexAny(s, "\r\n\v\f\u0085\u2028\u2029")
	if i < 0 {
		return s, ""
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	rest = s[i+size:]
	if s[i] == '\r' {
		rest = strings.TrimPrefix(rest, "\n")
	}
	return s[:i], rest
}

// regressions are the run's regressed cases, worst first, and whether they failed the run.
func regressions(run *report.Run) (regs []action.Regression, gated bool) {
	if run.Baseline == nil {
		return nil, false
	}
	type key struct{ dataset, id, target string }
	at := map[key]*report.Case{}
	for _, c := range run.Cases {
		at[key{c.Dataset, c.EvalID, c.Target}] = c
	}
	for _, x := range run.Baseline.Of(compare.Regressed) {
		r := action.Regression{ID: x.Label, Before: x.Before.Score, After: x.After.Score, Why: report.TestNote(x)}
		if c := at[key{x.Dataset, x.ID, x.Target}]; c != nil {
			r.File, r.Line = c.File, int(c.Line)
		}
		regs = append(regs, r)
	}
	m := run.Gate.MaxRegressions
	return regs, m != nil && len(regs) > *m
}
