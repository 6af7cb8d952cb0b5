// Package report renders every report of a run from its results records: the JUnit XML
// file, the job summary, the PR comment and the console summary. It never runs anything nor
// calls GitHub, so `agentv report` can re-render a results file anywhere; the caller does the
// file I/O. Markdown surfaces build a view, decide what fits their size budget (all cases →
// failures only → headline), then write.
//
// Records arrive redacted, so this package does not look for secrets, but all model and user
// text is untrusted: escapes and characters XML cannot carry are stripped everywhere
// (logtext.Block), and the Markdown surfaces escape HTML, table pipes, @mentions and #123.
//
//	run := &report.Run{Records: recs, Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts}
//	_ = report.JUnit(junitFile, run)
//	summary := report.Summary(run)
//	comment := report.Comment(run, "<!-- agentv-action:v1 key=pr -->")
//	report.Console(os.Stdout, run, isTerminal)
package report

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/history"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Run is everything a report shows about one run.
type Run struct {
	Cases   []*Case           // in any order; reports sort them by file, line, then id
	Records []*results.Record // when Cases is nil (a results file read back)
	// JUnitParts are the testcases spooled as cases finished (Collector.Parts), nil: none.
	JUnitParts  *JUnitParts
	Decision    gate.Decision
	Gate        gate.Options
	Counts      gate.Counts
	Diagnostics []suite.Diagnostic // run-level load and configuration problems and warnings
	Details     DetailLevel        // how much model text the Markdown surfaces show
	Links       Links              // where links point; empty fields mean no links
	Version     string             // agentv version, shown in footers
	Targets     []string
	Started     time.Time // zero: unknown
	Duration    time.Duration
	Baseline    *compare.Result    // nil without a baseline
	Cancelled   bool               // interrupted: the surfaces say "cancelled", not "invalid"
	Cache       *results.CacheUse  // nil when the response cache was not used
	Shard       *results.RunShard  // one shard of a split suite: the counts are the shard's
	Budget      *results.RunBudget // --budget-usd, nil without one
	// History is the earlier runs and this one (SetHistory), nil without the history input.
	History *history.History

	sorted  []*Case            // cases in report order, computed once
	dups    map[*Case]struct{} // cases whose id (and target, on several) is not unique
	several bool               // a case ran on more than one target
}

// sortedCases returns the run's cases in report order, without reordering Cases or Records.
// The run must not change once a report has been rendered.
func (run *Run) sortedCases() []*Case {
	if run.sorted != nil {
		return run.sorted
	}
	var out []*Case
	if run.Cases != nil {
		out = make([]*Case, 0, len(run.Cases))
		for _, c := range run.Cases {
			if c != nil {
				out = append(out, c)
			}
		}
	} else {
		out = casesOf(run.Records)
	}
	slices.SortStableFunc(out, func(a, b *Case) int { return cmp.Or(reportOrder(a, b), cmp.Compare(a.Target, b.Target)) })
	run.several = severalTargets(out)
	run.sorted, run.dups = out, findDups(out, run.several)
	return out
}

// severalTargets reports whether a case of the run ran on more than one target.
func (run *Run) severalTargets() bool {
	run.sortedCases()
	return run.several
}

// severalTargets reports it for sorted cases, where the records of one case are neighbours.
func severalTargets(sorted []*Case) bool {
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if a.File == b.File && a.Line == b.Line && a.EvalID == b.EvalID && a.Target != b.Target && a.Target != "" && b.Target != "" {
			return true
		}
	}
	return false
}

// targetsSeen learns whether one case (file and id) has records on more than one target. It
// keeps 64-bit hashes, not the strings: a 100,000-case run on one target holds an entry a case
// (a collision could only name targets where one would do).
type targetsSeen struct {
	first map[uint64]uint64 // hash of file and id → hash of the target of its first record
}

// add notes a record and reports whether its case now has records on two targets.
func (s *targetsSeen) add(file, id, target string) bool {
	if target == "" {
		return false
	}
	if s.first == nil {
		s.first = map[uint64]uint64{}
	}
	h := fnv.New64a()
	h.Write([]byte(file))
	h.Write([]byte{0})
	h.Write([]byte(id))
	k := h.Sum64()
	h.Reset()
	h.Write([]byte(target))
	t := h.Sum64()
	first, ok := s.first[k]
	if !ok {
		s.first[k] = t
		return false
	}
	return first != t
}

// caseName is a case's id, followed by its target when withTarget: "case-1 [gpt]".
func caseName(id, target string, withTarget bool) string {
	if withTarget && target != "" {
		return id + " [" + target + "]"
	}
	return id
}

// Links locate the run on GitHub. Source links need ServerURL, Repo and SHA.
type Links struct {
	ServerURL, Repo string // GITHUB_SERVER_URL, owner/name
	SHA             string // the pull request's head commit, not the test-merge commit
	RunURL          string
	// Artifacts is the run's artifacts page, where the uploaded results folder holds
	// report.html; Artifact is its name. "" (outside GitHub Actions): no link.
	Artifacts, Artifact string
}

// DetailLevel says for which cases the Markdown surfaces show model text (answer excerpt,
// judge reasoning, hits and misses).
type DetailLevel int

// Detail levels; the zero value is the default.
const (
	DetailsFailures DetailLevel = iota // failed and errored cases only
	DetailsAll                         // every case
	DetailsNone                        // no model text at all
)

// detailNames are the settings' names, by DetailLevel.
var detailNames = []string{"failures", "all", "none"}

// ParseDetailLevel parses a details setting: failures (also empty), all or none.
func ParseDetailLevel(s string) (DetailLevel, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if i := slices.Index(detailNames, name); i >= 0 || name == "" {
		return DetailLevel(max(i, 0)), nil
	}
	return DetailsFailures, fmt.Errorf("unknown value %q (want failures, all or none)", s)
}

func (d DetailLevel) String() string { return detailNames[d] }

// shows reports whether cases with verdict v get model text at this level.
func (d DetailLevel) shows(v results.Verdict) bool {
	switch d {
	case DetailsAll:
		return true
	case DetailsNone:
		return false
	}
	return v != results.VerdictPass
}

// verdictOf treats a record with an error as errored whatever its verdict field says, and an
// unknown verdict as errored too, so no surface can show a broken record as passing.
func verdictOf(r *results.Record) results.Verdict {
	if r.Error != "" {
		return results.VerdictError
	}
	switch r.Verdict {
	case results.VerdictPass, results.VerdictFail:
		return r.Verdict
	}
	return results.VerdictError
}

// label names a case for people: its id, with its target when the run has several, and
// with its file and line when another case shares it (two eval files may share ids).
func (run *Run) label(c *Case) string {
	run.sortedCases()
	name := caseName(c.EvalID, c.Target, run.several)
	if _, ok := run.dups[c]; ok {
		return fmt.Sprintf("%s (%s)", name, position(c.File, int(c.Line)))
	}
	return name
}

// findDups returns the cases whose id (and target, when byTarget) another case shares.
func findDups(cases []*Case, byTarget bool) map[*Case]struct{} {
	type key struct{ id, target string }
	seen := make(map[key]*Case, len(cases))
	var dups map[*Case]struct{}
	for _, c := range cases {
		k := key{id: c.EvalID}
		if byTarget {
			k.target = c.Target
		}
		first, ok := seen[k]
		if !ok {
			seen[k] = c
			continue
		}
		if dups == nil {
			dups = map[*Case]struct{}{}
		}
		dups[first], dups[c] = struct{}{}, struct{}{}
	}
	return dups
}

// position formats file:line, leaving out what is unknown.
func position(file string, line int) string {
	if line > 0 {
		if file == "" {
			file = "?"
		}
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// firstError is the record's error, else the first evaluator error (depth first), else "".
func firstError(r *results.Record) string {
	if r.Error != "" {
		return r.Error
	}
	for e := range evaluators(r.EvaluatorResults) {
		if e.Error != "" {
			return e.Name + ": " + e.Error
		}
	}
	return ""
}

// evaluators yields ers and their members, depth first.
func evaluators(ers []results.EvaluatorResult) iter.Seq[*results.EvaluatorResult] {
	return func(yield func(*results.EvaluatorResult) bool) {
		var walk func([]results.EvaluatorResult) bool
		walk = func(ers []results.EvaluatorResult) bool {
			for i := range ers {
				if !yield(&ers[i]) || !walk(ers[i].EvaluatorResults) {
					return false
				}
			}
			return true
		}
		walk(ers)
	}
}

// diagnosticCounts counts the errors and the warnings of collectWarnings.
func diagnosticCounts(run *Run) (errs, warns int) {
	for _, d := range collectWarnings(run, run.sortedCases()) {
		if d.IsError() {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

// collectWarnings merges run diagnostics with record warnings, each once, sorted by position.
func collectWarnings(run *Run, cases []*Case) []suite.Diagnostic {
	type key struct {
		file      string
		line, col int
		msg       string
	}
	seen := map[key]bool{}
	var out []suite.Diagnostic
	add := func(d suite.Diagnostic) {
		k := key{d.File, d.Line, d.Col, d.Message}
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, d)
	}
	for _, d := range run.Diagnostics {
		add(d)
	}
	for _, c := range cases {
		for _, w := range c.warnings() {
			add(suite.Diagnostic{File: w.File, Line: w.Line, Col: w.Col, Kind: w.Kind, Severity: w.Severity, CaseID: c.EvalID, Message: w.Message})
		}
	}
	suite.SortDiagnostics(out)
	return out
}

// formatMS formats a duration in milliseconds for people: 850ms, 1.2s, 2m05s.
func formatMS(ms int64) string {
	switch {
	case ms < 0:
		return "0ms"
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	}
	s := ms / 1000
	if s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
}

// thousands formats n with comma separators (65536 → 65,536).
func thousands(n int) string {
	if n <= -1000 || n >= 1000 {
		r := n % 1000
		return thousands(n/1000) + fmt.Sprintf(",%03d", max(r, -r))
	}
	return strconv.Itoa(n)
}

// Flaky counts the run's cases whose trials disagreed about passing.
func Flaky(run *Run) int { return flakyIn(run.sortedCases()) }

func flakyIn(cases []*Case) int {
	n := 0
	for _, c := range cases {
		if c.Flaky {
			n++
		}
	}
	return n
}
