package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/agentv/action/action"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// localMarker heads comment.md when the comment is rendered outside a pull request.
const localMarker = "<!-- agentv-action:v1 local -->"

// runEval runs an eval, writes every report, and returns the exit code. Under GitHub
// Actions it also writes the step summary and annotations, and the PR comment when asked.
func (c *Command) runEval(ctx context.Context, cfg EvalConfig, red *redact.Redactor, ro runOptions) int {
	var cmds *action.Commands
	if ro.actions {
		cmds = action.NewCommands(c.Stdout, red) // masks every secret as soon as it is known
	}
	out, err := c.engine(cfg, red, cmds).Run(ctx)
	defer out.Close()
	if err != nil {
		out.Problems = append(out.Problems, red.String(err.Error()))
	}
	run := buildRun(out, cfg.Gate)
	dir := filepath.Dir(cfg.Out)
	if ro.actions {
		env := action.LoadEnv(c.Getenv)
		ev, _ := action.LoadEvent(c.Getenv)
		mode := action.CommentOff
		if ro.comment {
			mode = action.CommentAlways
		}
		red.Add(c.Getenv("GITHUB_TOKEN"))
		ws := env.Workspace
		if ws == "" {
			ws = c.Cwd
		}
		pub := publisher{c: c, env: env, ev: ev, cmds: cmds, red: red, workspace: ws,
			in: action.Inputs{Details: action.DetailsFailures, GitHubToken: c.Getenv("GITHUB_TOKEN"), Comment: mode}}
		return pub.publish(ctx, run, out, dir, out.ResultsPath)
	}
	if werr := writeReports(dir, run, localMarker); werr != nil {
		fmt.Fprintf(c.Stderr, "agentv: %s\n", logtext.Line(werr.Error()))
	}
	printDiagnostics(c.Stderr, out.Diagnostics, isTerminal(c.Stderr))
	report.Console(c.Stdout, run, isTerminal(c.Stdout))
	if out.ResultsPath != "" {
		fmt.Fprintf(c.Stdout, "Results written to %s\n", logtext.Line(relTo(c.Cwd, out.ResultsPath)))
	}
	return run.Decision.Outcome.ExitCode(false)
}

// buildRun turns an engine outcome into the reports' input.
func buildRun(out *Outcome, g gate.Options) *report.Run {
	if len(out.Targets) == 0 { // a report from a results file: the records name their targets
		seen := map[string]bool{}
		for _, r := range out.Cases {
			if r.Target != "" && !seen[r.Target] {
				seen[r.Target] = true
				out.Targets = append(out.Targets, r.Target)
			}
		}
		sort.Strings(out.Targets)
	}
	counts := tally(out.Cases)
	counts.Problems = out.Problems
	counts.SkipReason = out.SkipReason
	counts.Skipped = out.Skipped
	return &report.Run{
		Cases: out.Cases, JUnitParts: out.JUnitParts, Decision: gate.Decide(counts, g), Gate: g, Counts: counts,
		Diagnostics: out.Diagnostics, Details: report.DetailsFailures, Version: version(),
		Targets: out.Targets, Started: out.Started, Duration: out.Duration,
	}
}

// tally counts verdicts as gate.Tally does, from the cases' verdicts (an errored record
// counts as errored whatever its verdict field says, as every report shows it).
func tally(cases []*report.Case) gate.Counts {
	return gate.TallySeq(func(yield func(results.Verdict, float64) bool) {
		for _, c := range cases {
			if !yield(c.Verdict, c.Score) {
				return
			}
		}
	})
}

// writeReports writes junit.xml, summary.md and comment.md into dir.
func writeReports(dir string, run *report.Run, marker string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("could not create %s: %w", dir, err)
	}
	f, err := os.Create(filepath.Join(dir, "junit.xml"))
	if err != nil {
		return fmt.Errorf("could not write JUnit report: %w", err)
	}
	if err := report.JUnit(f, run); err != nil {
		f.Close()
		return fmt.Errorf("could not write JUnit report: %w", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte(report.Summary(run)), 0o644); err != nil {
		return fmt.Errorf("could not write summary: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "comment.md"), []byte(report.Comment(run, marker)), 0o644); err != nil {
		return fmt.Errorf("could not write comment: %w", err)
	}
	return nil
}

func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && !filepath.IsAbs(r) && len(r) > 0 && r[0] != '.' {
		return r
	}
	return p
}
