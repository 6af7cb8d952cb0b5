package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentv/action/action"
	"github.com/agentv/action/compare"
	"github.com/agentv/action/config"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/history"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// reportCmd renders every report from a results file, running nothing.
func (c *Command) reportCmd(args []string) int {
	fs := flag.NewFlagSet("agentv report", flag.ContinueOnError)
	var patterns []string
	fs.Var(listFlag(&patterns, false, "want a file or a glob"), "results", "results JSONL file to report on (required); repeat it or use a glob to merge several (the shards of a split run) into one report")
	outDir := fs.String("out-dir", "", "where to write junit.xml, summary.md and comment.md, and a merge's results.jsonl (default: beside the results file; for a merge, "+config.DefaultResultsDir+" in the working directory)")
	g := gate.Defaults()
	fs.Var(optScoreFlag(&g.MinScore), "min-score", "minimum mean score")
	fs.Var(scoreFlag(&g.CaseThreshold, nil), "case-threshold", "case pass threshold")
	fs.Var(countFlag(&g.MaxFailures), "max-failures", "failed cases allowed")
	fs.Var(countFlag(&g.MaxErrors), "max-errors", "errored cases allowed")
	var baselinePath string
	baselineFlags(fs, &baselinePath, &g)
	var historyGlobs []string
	fs.Var(listFlag(&historyGlobs, false, "want a file or a glob"), "history", "results files of earlier runs (a glob, quoted: 'runs/*/results.jsonl'): the summary and comment chart each dataset's pass rate over them and say since which run a case fails")
	var otel config.Settings
	otelFlags(fs, &otel)
	if _, code, ok := parseCommand(fs, "agentv report --results FILE [--results FILE...] [flags]", args, c.Stdout, c.Stderr); !ok {
		return code
	}
	if len(patterns) == 0 {
		fmt.Fprintln(c.Stderr, "agentv report: --results FILE is required")
		return gate.ExitInvalid
	}
	paths, err := expandResults(c.Cwd, patterns)
	if err != nil {
		fmt.Fprintf(c.Stderr, "agentv report: %s\n", logtext.Line(err.Error()))
		return gate.ExitInvalid
	}
	path := paths[0]
	// Thresholds not given here are the run's own, so the report reaches the run's outcome.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	start, _ := results.ReadRunStart(path)
	if start != nil && start.Gate != nil {
		rec := gate.OptionsOf(start.Gate)
		g.CaseThreshold = unlessGiven(set["case-threshold"], g.CaseThreshold, rec.CaseThreshold)
		g.MinScore = unlessGiven(set["min-score"], g.MinScore, rec.MinScore)
		g.MaxFailures = unlessGiven(set["max-failures"], g.MaxFailures, rec.MaxFailures)
		g.MaxErrors = unlessGiven(set["max-errors"], g.MaxErrors, rec.MaxErrors)
	}
	var notes []string
	if start != nil && start.Baseline != nil {
		notes = runBaseline(start.Baseline, &g, set, baselinePath == "")
	}
	dir := *outDir
	switch {
	case dir == "" && len(paths) > 1:
		// A merge writes its own results.jsonl and reports, which belong beside none of its
		// inputs (they would replace a shard's file, or a user's own summary.md in the
		// folder that holds them all): like eval, it has a folder of its own.
		dir = config.DefaultResultsDir
	case dir == "":
		dir = filepath.Dir(path)
	}
	dir = absIn(c.Cwd, dir)
	if *outDir == "" {
		// The folder was not the user's choice: replace only reports agentv wrote there.
		names := reportFiles
		if len(paths) > 1 {
			names = append(slices.Clone(reportFiles), "results.jsonl")
		}
		// An output that is one of the inputs is the output guard's to refuse, with its message.
		foreign := slices.DeleteFunc(foreignOutputs(dir, names), func(f string) bool { return isAnyOf(f, paths) })
		if len(foreign) > 0 {
			fmt.Fprintf(c.Stderr, "agentv report: %s was not written by agentv: refusing to replace it; choose where the reports go with --out-dir\n",
				logtext.Line(relTo(c.Cwd, foreign[0])))
			return gate.ExitInvalid
		}
	}
	cmpr, note, err := loadBaseline(baselinePath, c.Cwd, "", g.RegressionMargin)
	if err != nil {
		fmt.Fprintf(c.Stderr, "agentv report: %s\n", logtext.Line(err.Error()))
		return gate.ExitInvalid
	}
	if note != "" {
		notes = append(notes, note)
	}
	if cmpr != nil && start != nil && start.Baseline != nil && start.Baseline.SHA256 != "" && cmpr.Baseline().SHA256 != start.Baseline.SHA256 {
		notes = append(notes, fmt.Sprintf("the run was compared with another baseline (%s, %d cases) than this report (%s)",
			start.Baseline.Source, start.Baseline.Cases, cmpr.Baseline().Source))
	}
	for _, n := range notes {
		c.sayLocal(action.LevelNotice, "", n)
	}
	otelOuts, err := otelOutputs(&otel, c.Cwd, c.Getenv, c.Stdout, &redact.Redactor{})
	if err != nil {
		fmt.Fprintf(c.Stderr, "agentv report: %s\n", logtext.Line(err.Error()))
		return gate.ExitInvalid
	}
	hist, err := localHistory(c.Cwd, historyGlobs, paths, g.CaseThreshold)
	if err != nil {
		fmt.Fprintf(c.Stderr, "agentv report: %s\n", logtext.Line(err.Error()))
		return gate.ExitInvalid
	}
	out := readResults(paths, dir, c.Cwd, "--out-dir", report.DetailsFailures, g, cmpr)
	defer out.Close()
	run := finishRun(out, g, nil)
	if hist != nil {
		run.SetHistory(hist, history.Run{Label: "this run"})
	}
	written := "" // a report writes a results file only when it merges several
	if out.merged {
		written = out.ResultsPath
	}
	deliver(context.Background(), &finished{run: run, out: out, dir: dir, say: c.sayLocal},
		append(c.localOutputs(written), otelOuts...)...)
	return run.Decision.Outcome.ExitCode(false)
}

// runBaseline applies the regression thresholds a run recorded to the report's, but for the
// flags given (set), and says what the report should know about the run's baseline.
func runBaseline(rb *results.RunBaseline, g *gate.Options, set map[string]bool, uncompared bool) []string {
	g.RegressionMargin = unlessGiven(set["regression-margin"], g.RegressionMargin, rb.RegressionMargin)
	g.MaxRegressions = unlessGiven(set["max-regressions"], g.MaxRegressions, rb.MaxRegressions)
	g.MaxMeanDrop = unlessGiven(set["max-mean-drop"], g.MaxMeanDrop, rb.MaxMeanDrop)
	if uncompared {
		return []string{fmt.Sprintf("the run was compared with the baseline %s; give --baseline to compare this report too", rb.Source)}
	}
	return nil
}

// unlessGiven is the flag's value when it was given, else the run's.
func unlessGiven[T any](given bool, flag, run T) T {
	if given {
		return flag
	}
	return run
}

// readResults reads results files one record at a time (a large file is never held whole),
// re-grading each with g's case threshold, and replays their run records so the report
// reaches the outcome of the runs that wrote them (gate.Replay). Several files merge into one
// report: all shards of one split run (gate.CheckShards) or whole runs. A results file that is
// one of the reports in dir is refused; a read error keeps the records before it.
func readResults(paths []string, dir, cwd, outName string, details report.DetailLevel, g gate.Options, cmpr *compare.Comparer) *Outcome {
	threshold := g.CaseThreshold
	col := report.NewCollector(details, threshold, action.MaxAnnotationsPerLevel)
	out := &Outcome{collector: col}
	out.merged = len(paths) > 1
	merged := ""
	if out.merged {
		merged = filepath.Join(dir, "results.jsonl")
	} else {
		out.ResultsPath = paths[0]
	}
	out.guard = newOutputGuard(merged, dir, cwd, outName)
	for _, path := range paths {
		if err := out.guard.check(path, "results file"); err != nil {
			out.Problems, out.refused = []string{err.Error()}, true
			return out
		}
	}
	// A merge writes the records of all its files as one whole run, so a report (or a
	// baseline) of that one file reaches the merge's outcome: see startRecord.
	var write func(*results.Record)
	if out.merged {
		rf, err := createResults(merged, startRecord(g, cmpr, time.Now()))
		if err != nil {
			out.Problems = append(out.Problems, err.Error())
		} else {
			out.results, out.ResultsPath = rf, merged
			rf.counted = true
			write = func(r *results.Record) {
				if err := rf.w.Write(r); err != nil && rf.err == nil {
					rf.err = err
				}
				rf.cases++
			}
		}
	}
	var shards []gate.ShardFile
	var across *gate.MergeCheck // cases repeated across the files, which a replay of the merge would refuse
	if out.merged {
		across = new(gate.MergeCheck)
	}
	var gated []string // notes on the runs' thresholds, once each
	unknown, atLeast := false, false
	for _, path := range paths {
		name := relTo(cwd, path)
		if across != nil {
			across.File(name)
		}
		res, err := readOne(path, col, threshold, cmpr, across, write)
		out.Problems = append(out.Problems, res.RunProblems...)
		for _, p := range res.Problems {
			out.Problems = append(out.Problems, name+": "+p)
		}
		if err != nil {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: could not read results: %v", name, err))
		}
		if rec := gate.OptionsOf(res.Gate); rec != nil && rec.String() != g.String() && !slices.Contains(gated, rec.String()) {
			gated = append(gated, rec.String())
			res.Notes = append(res.Notes, fmt.Sprintf("the run gated with %s; this report gates with %s", rec, g))
		}
		for _, n := range res.Notes {
			out.Diagnostics = append(out.Diagnostics, suite.Diagnostic{File: name, Kind: "results", Message: n})
		}
		shards = append(shards, gate.ShardFile{Name: name, Shard: res.Shard})
		if len(paths) == 1 {
			out.Shard = res.Shard // a shard on its own reports as that shard
		}
		unknown = unknown || (res.Planned == 0 && res.Stopped)
		out.Planned += res.Planned
		atLeast = atLeast || res.PlannedAtLeast
		out.stopped = out.stopped || res.Stopped
		out.Cancelled = out.Cancelled || res.Cancelled
	}
	out.PlannedComplete = !atLeast
	if unknown && len(paths) > 1 {
		out.Planned, out.PlannedComplete = 0, true // one run's count is not known, so neither is the sum
	}
	// A shard reported on its own reaches its run's outcome; merged, shards must make a whole.
	if len(paths) > 1 {
		out.Problems = append(out.Problems, gate.CheckShards(shards)...)
		out.Problems = append(out.Problems, across.Problems()...)
	}
	out.Cases, out.JUnitParts = col.Cases(), col.Parts()
	out.ran = len(out.Cases) > 0
	if cmpr != nil {
		out.Comparison = cmpr.Result()
	}
	return out
}

// startRecord is the start record of a run (or a merge's) results file: a run that gated with
// g (and was compared with cmpr's baseline); its end record holds the counts.
func startRecord(g gate.Options, cmpr *compare.Comparer, now time.Time) *results.RunRecord {

	start := &results.RunRecord{Kind: results.KindRunStart, Format: results.RunFormat, Version: version(),
		Timestamp: now.UTC().Format(stampLayout), Gate: g.Record()}
	if cmpr != nil {
		b := cmpr.Baseline()
		start.Baseline = g.BaselineRecord(b.Source, b.SHA256, b.Len())
	}
	return start
}

// readOne adds one results file's case records to col and replays its run records; a non-nil
// across checks them against the other merged files', a non-nil write gets each, re-graded.
func readOne(path string, col *report.Collector, threshold float64, cmpr *compare.Comparer, across *gate.MergeCheck, write func(*results.Record)) (gate.ReplayResult, error) {
	var rp gate.Replay
	err := results.ScanFileLines(path, results.Visitor{
		Case: func(r *results.Record, line int) error {
			rp.Case(r, line)
			if across != nil {
				across.Case(r, line)
			}
			regrade(r, threshold)
			if cmpr != nil {
				cmpr.Add(r)
			}
			if write != nil {
				write(r)
			}
			col.Add(r)
			return nil
		},
		Run: func(r *results.RunRecord, line int) error {
			rp.Run(r, line)
			return nil
		},
	})
	return rp.Result(), err
}

// isAnyOf reports whether the file at path is one of the files at paths.
func isAnyOf(path string, paths []string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(paths, func(p string) bool {
		pi, err := os.Stat(p)
		return err == nil && os.SameFile(fi, pi)
	})
}

// maxResultsFiles bounds how many results files one report merges: as many as a run can
// have shards.
const maxResultsFiles = config.MaxShards

// expandResults returns the results files patterns name (relative to cwd), each once in
// pattern order, a glob's matches sorted; a glob must match. A file named twice (a symbolic
// link to it) is listed once, so its cases never count twice; `**` follows no folder links.
func expandResults(cwd string, patterns []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, pat := range patterns {
		abs := absIn(cwd, pat)
		resolved, err := results.ResolvePath(abs) // a run directory: its results file
		if err != nil {
			return nil, err
		}
		matches := []string{resolved}
		if strings.ContainsAny(pat, "*?[{") {
			m, err := doublestar.FilepathGlob(abs, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
			if err != nil {
				return nil, fmt.Errorf("results pattern %q: %w", pat, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("no results file matches %q", pat)
			}
			sort.Strings(m)
			matches = m
		}
		for _, p := range matches {
			file := p // the file itself, when p is a link to it
			if r, err := filepath.EvalSymlinks(p); err == nil {
				file = r
			}
			if seen[p] || seen[file] {
				continue
			}
			seen[p], seen[file] = true, true
			if len(out) == maxResultsFiles {
				return nil, fmt.Errorf("the results patterns match more than %d files: name the shards' files more precisely", maxResultsFiles)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// regrade grades a scored case with this report's case threshold (unless its eval file set
// its own), so a report step can gate differently from the run that wrote the file.
func regrade(r *results.Record, threshold float64) {
	if len(r.Trials) > 0 { // each trial again, then the strategy
		results.RegradeTrials(r, threshold)
		return
	}
	if r.Verdict == results.VerdictError || r.Error != "" {
		r.Verdict = results.VerdictError
		return
	}
	if r.CaseThreshold != nil {
		threshold = *r.CaseThreshold
	}
	if r.Score >= threshold {
		r.Verdict = results.VerdictPass
	} else {
		r.Verdict = results.VerdictFail
	}
}
