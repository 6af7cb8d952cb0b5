package cli

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// reportCmd renders every report from a results file, running nothing.
func (c *Command) reportCmd(args []string) int {
	fs := flag.NewFlagSet("agentv report", flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	resultsPath := fs.String("results", "", "results JSONL file to report on (required)")
	outDir := fs.String("out-dir", "", "where to write junit.xml, summary.md and comment.md (default: beside the results file)")
	g := gate.Defaults()
	var minScore float64
	var minSet bool
	fs.Var(scoreValue{f: &minScore, set: &minSet}, "min-score", "minimum mean score")
	fs.Var(scoreValue{f: &g.CaseThreshold}, "case-threshold", "case pass threshold")
	fs.Var(countValue{&g.MaxFailures}, "max-failures", "failed cases allowed")
	fs.Var(countValue{&g.MaxErrors}, "max-errors", "errored cases allowed")
	if _, err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return gate.ExitInvalid
	}
	if *resultsPath == "" {
		fmt.Fprintln(c.Stderr, "agentv report: --results FILE is required")
		return gate.ExitInvalid
	}
	if minSet {
		g.MinScore = &minScore
	}
	path := *resultsPath
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.Cwd, path)
	}
	out, err := readResults(path, report.DetailsFailures, g.CaseThreshold)
	defer out.Close()
	if err != nil {
		out.Problems = append(out.Problems, fmt.Sprintf("could not read results: %v", err))
	}
	run := buildRun(out, g)
	dir := *outDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	if err := writeReports(dir, run, localMarker); err != nil {
		fmt.Fprintf(c.Stderr, "agentv: %s\n", logtext.Line(err.Error()))
	}
	report.Console(c.Stdout, run, isTerminal(c.Stdout))
	return run.Decision.Outcome.ExitCode(false)
}

// readResults reads a results file for the reports one record at a time (a large file is
// never held whole), re-grading each with threshold. On a read error the outcome keeps the
// records before it.
func readResults(path string, details report.DetailLevel, threshold float64) (*Outcome, error) {
	col := newCollector(details, threshold)
	out := &Outcome{ResultsPath: path, collector: col}
	err := results.ScanFile(path, func(r *results.Record) error {
		regrade(r, threshold)
		col.Add(r)
		return nil
	})
	out.Cases, out.JUnitParts = col.Cases(), col.Parts()
	return out, err
}

// regrade re-applies the case threshold of this report to a scored case, so a report step
// can gate with a different threshold than the run that wrote the file.
func regrade(r *results.Record, threshold float64) {
	if r.Verdict == results.VerdictError || r.Error != "" {
		r.Verdict = results.VerdictError
		return
	}
	if r.Score >= threshold {
		r.Verdict = results.VerdictPass
	} else {
		r.Verdict = results.VerdictFail
	}
}
