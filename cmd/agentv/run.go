package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentv/action/action"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// localMarker heads comment.md when the comment is rendered outside a pull request.
const localMarker = "<!-- agentv-action:v1 local -->"

// runEval runs an eval, writes every report, and returns the exit code. Under GitHub
// Actions (actions) it also writes the step summary and annotations, and the PR comment when asked.
func (c *Command) runEval(ctx context.Context, cfg EvalConfig, red *redact.Redactor, actions, comment bool) int {
	var cmds *action.Commands
	if actions {
		cmds = action.NewCommands(c.Stdout, red) // masks every secret as soon as it is known
	}
	otel, err := otelOutputs(&cfg.Settings, c.Cwd, c.Getenv, c.Stdout, red)
	if err != nil {
		fmt.Fprintf(c.Stderr, "agentv: %s\n", logtext.Line(err.Error()))
		return gate.ExitInvalid
	}
	out := c.engine(cfg, red, cmds).Run(ctx)
	defer out.Close()

	run := finishRun(out, cfg.Gate, red)
	f := &finished{run: run, out: out, dir: filepath.Dir(cfg.Out), say: c.sayLocal}
	var outs []output
	if cfg.RunDir != "" {
		outs = append(outs, runDir{dir: cfg.RunDir, cwd: c.Cwd, opts: cfg.runDirOptions(), stderr: c.Stderr, red: red})
	}
	if !actions {
		deliver(ctx, f, append(append(outs, c.localOutputs(out.ResultsPath)...), otel...)...)
		return run.Decision.Outcome.ExitCode(false)
	}
	mode := action.CommentOff
	// A shard comments never: the job that merges the shards posts the one comment.
	if comment && cfg.Shard == nil {
		mode = action.CommentAlways
	}
	red.Add(c.Getenv("GITHUB_TOKEN"))
	ev, _ := action.LoadEvent(c.Getenv)
	gh := c.github(action.Inputs{Details: report.DetailsFailures, GitHubToken: c.Getenv("GITHUB_TOKEN"), Comment: mode}, ev, cmds)
	return gh.publish(ctx, f, append(outs, otel...)...)
}

// finishRun decides a finished run and commits its results file with the end record; a
// results file that cannot be written makes the run invalid.
func finishRun(out *Outcome, g gate.Options, red *redact.Redactor) *report.Run {
	run := buildRun(out, g)
	if err := out.commitResults(run, time.Now()); err != nil {
		out.Problems = append(out.Problems, red.String(err.Error()))
		out.ResultsPath = ""
		run = buildRun(out, g)
	}
	return run
}

// buildRun turns an engine outcome into the reports' input.
func buildRun(out *Outcome, g gate.Options) *report.Run {
	if len(out.Targets) == 0 { // a report from a results file: the records name their targets
		seen := map[string]bool{}
		for _, r := range out.Cases {
			if r.Target != "" {
				seen[r.Target] = true
			}
		}

		out.Targets = slices.Sorted(maps.Keys(seen))

	}
	// From the reports' verdicts: an errored record counts as errored whatever its verdict field says.
	counts := gate.TallyOf(out.Cases, func(c *report.Case) (results.Verdict, float64, *float64) {
		return c.Verdict, c.Score, c.CaseThreshold
	})
	counts.Problems = out.Problems
	counts.SkipReason = out.SkipReason
	counts.Planned, counts.PlannedAtLeast = out.Planned, out.Planned > 0 && !out.PlannedComplete
	counts.Stopped = out.Cancelled || out.stopped
	counts.Skipped = out.Skipped
	counts.Baseline = out.Comparison.Gate()
	var cached *results.CacheUse
	if out.collector != nil {
		cached = out.collector.Cache()
	}
	decision := gate.Decide(counts, g)
	// More shards than cases leaves a shard empty: nothing is wrong with it, and its results
	// file must be kept for the merge.
	if sh := out.Shard; sh != nil && sh.PlanCases != nil && *sh.PlanCases > 0 && counts.Total == 0 &&
		len(counts.Problems) == 0 && !counts.Stopped && counts.SkipReason == "" {
		decision = gate.Decision{Outcome: gate.Pass, Reason: fmt.Sprintf("shard %d of %d has none of the plan's %d cases", sh.Index, sh.Count, *sh.PlanCases)}
	}
	diags := out.Diagnostics
	bud := out.budget.record()
	if bud != nil && bud.Exceeded {
		// Every report says so: in its outcome line and its warnings.
		decision.Reason += "; " + bud.String()
		diags = append(slices.Clip(diags), suite.Diagnostic{Severity: suite.SeverityWarning, Kind: "budget",
			Message: bud.String() + "; they are errored records saying so"})
	}
	return &report.Run{Cache: cached, Shard: out.Shard, Baseline: out.Comparison, Budget: bud,
		Cases: out.Cases, JUnitParts: out.JUnitParts, Decision: decision, Gate: g, Counts: counts,
		Diagnostics: diags, Details: report.DetailsFailures, Version: version(),
		Targets: out.Targets, Started: out.Started, Duration: out.Duration, Cancelled: out.Cancelled,
	}
}

func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && !filepath.IsAbs(r) && len(r) > 0 && r[0] != '.' {
		return r
	}
	return p
}
