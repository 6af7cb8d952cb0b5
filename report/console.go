package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/results"
)

// ANSI styles for the console; used only when the caller asks for color.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

const banner = "=================================================="

// consoleTop is how many best and worst cases the console lists.
const consoleTop = 3

// consoleProblems is how many of an invalid run's problems the console lists.
const consoleProblems = 20

// consoleGroupIDs is how many case ids the console names for one error shared by many cases.
const consoleGroupIDs = 5

// Console writes the end-of-run summary, laid out as AgentV 2.5's: an ERRORS section (each
// distinct message once), the EVALUATION SUMMARY (counts, then score statistics, histogram and
// top and bottom cases, or an invalid or cancelled run's problems), flaky cases, the baseline,
// warnings and the outcome. color adds ANSI styles; model text is flattened to part of one line
// each (logtext.Line), so no line is a workflow command.
func Console(w io.Writer, run *Run, color bool) {
	if run == nil {
		run = &Run{}
	}
	p := &painter{color: color}
	recs := run.sortedCases()
	// Written through a buffer, not built whole: 100,000 errored cases are 100,000 lines.
	b := bufio.NewWriterSize(w, 64<<10)
	defer b.Flush()

	writeErrorGroups(b, run, recs, p)

	b.WriteString(banner + "\n" + p.paint(ansiBold, "EVALUATION SUMMARY") + "\n" + banner + "\n")
	c := run.Counts
	if of := c.OfPlanned(strconv.Itoa); of != "" {
		fmt.Fprintf(b, "Total eval cases: %s\n", of)
	} else {
		fmt.Fprintf(b, "Total eval cases: %d\n", c.Total)
	}
	fmt.Fprintf(b, "Passed: %d   Failed: %d   Errored: %d", c.Passed, c.Failed, c.Errors)
	if c.Skipped > 0 {
		fmt.Fprintf(b, "   Skipped: %d", c.Skipped)
	}
	flaky := flakyIn(recs)
	if flaky > 0 {
		fmt.Fprintf(b, "   Flaky: %d", flaky)
	}
	b.WriteString("\n")
	if sh := run.Shard; sh != nil {
		fmt.Fprintf(b, "Shard %d of %d: the counts and the outcome are this shard's\n", sh.Index, sh.Count)
	}
	o := run.Decision.Outcome
	// Scores of an invalid or cancelled run answer no question: its problems do.
	if o == gate.Invalid || run.Cancelled {
		// One problem is the outcome's reason already.
		if len(c.Problems) > 1 || (len(c.Problems) == 1 && c.Problems[0] != run.Decision.Reason) {
			writeProblems(b, c.Problems, p)
		}
	} else if s := caseStats(recs); s.Count > 0 {
		fmt.Fprintf(b, "Mean score:    %.3f\n", s.Mean)
		fmt.Fprintf(b, "Median score:  %.3f\n", s.Median)
		fmt.Fprintf(b, "Min score:     %.3f\n", s.Min)
		fmt.Fprintf(b, "Max score:     %.3f\n", s.Max)
		if s.HasStdDev {
			fmt.Fprintf(b, "Std deviation: %.3f\n", s.StdDev)
		}
		b.WriteString("\nScore distribution:\n")
		peak := slices.Max(s.Histogram[:])
		for i, n := range s.Histogram {
			bar := int(math.Round(float64(n) / float64(peak) * 30))
			if n > 0 && bar == 0 {
				bar = 1
			}
			fmt.Fprintf(b, "  %s: %-30s %d\n", BinLabels[i], strings.Repeat("█", bar), n)
		}
		top, bottom := ranked(recs)
		b.WriteString("\nTop 3 cases:\n")
		writeRanked(b, top, run)
		// A case that scored 1.0 is no case to look at, whatever its rank.
		bottom = slices.DeleteFunc(bottom, func(c *Case) bool { return caseScore(c) >= 1 })
		if len(bottom) > 0 {
			b.WriteString("Bottom 3 cases:\n")
			writeRanked(b, bottom, run)
		}
	}
	if flaky > 0 {
		writeFlaky(b, run, recs, flaky, p)
	}
	consoleBaseline(b, run)
	if s := cacheLine(run.Cache); s != "" {
		fmt.Fprintf(b, "\nResponse cache: %s\n", s)
	}
	// Counted as stderr printed them: an error is no warning.
	if errs, warns := diagnosticCounts(run); errs+warns > 0 {
		var parts []string
		if errs > 0 {
			parts = append(parts, p.paint(ansiRed, fmt.Sprintf("Errors: %d", errs)))
		}
		if warns > 0 {
			parts = append(parts, p.paint(ansiYellow, fmt.Sprintf("Warnings: %d", warns)))
		}
		fmt.Fprintf(b, "\n%s\n", strings.Join(parts, "   "))
	}
	name := cmp.Or(strings.ToUpper(string(o)), "UNKNOWN")
	if run.Cancelled {
		name = "CANCELLED" // still exit 2: the run is invalid, but it was stopped, not wrong
	}
	line := "Outcome: " + name
	if run.Decision.Reason != "" {
		line += " — " + logtext.Line(run.Decision.Reason)
	}
	fmt.Fprintf(b, "\n%s\n", p.paint(outcomeStyle(o), line))
}

// writeErrorGroups writes each distinct error once, in the order of the first case it ended,
// with that case's id or with how many cases it ended: one outage of 300 cases is one line.
func writeErrorGroups(b *bufio.Writer, run *Run, recs []*Case, p *painter) {
	type group struct {
		why   string
		cases []*Case
	}
	var groups []*group
	byWhy := map[string]*group{}
	for _, r := range recs {
		if r.Verdict != results.VerdictError {
			continue
		}
		g := byWhy[r.Why]
		if g == nil {
			g = &group{why: r.Why}
			byWhy[r.Why] = g
			groups = append(groups, g)
		}
		g.cases = append(g.cases, r)
	}
	if len(groups) == 0 {
		return
	}
	b.WriteString(p.paint(ansiRed+ansiBold, "ERRORS") + "\n")
	mark := p.paint(ansiRed, "✗")
	for _, g := range groups {
		why := logtext.Line(elide(g.why, whyRunes))
		if len(g.cases) == 1 {
			fmt.Fprintf(b, "  %s %s: %s\n", mark, logtext.Line(run.label(g.cases[0])), why)
			continue
		}
		fmt.Fprintf(b, "  %s %d cases: %s\n", mark, len(g.cases), why)
		b.WriteString("      ")
		for i, c := range g.cases[:min(len(g.cases), consoleGroupIDs)] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(logtext.Line(run.label(c)))
		}
		if more := len(g.cases) - consoleGroupIDs; more > 0 {
			fmt.Fprintf(b, " and %d more", more)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// consoleFlaky is how many flaky cases the console names.
const consoleFlaky = 20

// writeFlaky lists the flaky cases with how many trials passed and the verdict they count with.
func writeFlaky(b *bufio.Writer, run *Run, recs []*Case, n int, p *painter) {
	b.WriteString("\n" + p.paint(ansiYellow+ansiBold, fmt.Sprintf("Flaky cases: %d (each counts by its aggregate verdict)", n)) + "\n")
	listed := 0
	for _, c := range recs {
		if !c.Flaky {
			continue
		}
		if listed == consoleFlaky {
			fmt.Fprintf(b, "  … and %d more\n", n-listed)
			return
		}
		listed++
		fmt.Fprintf(b, "  ~ %s: %d/%d trials passed, %s %.3f\n", logtext.Line(run.label(c)), c.TrialsPassed, c.Trials, c.Verdict, c.Score)
	}
}

// writeProblems lists an invalid run's problems, the first consoleProblems of them.
func writeProblems(b *bufio.Writer, problems []string, p *painter) {
	if len(problems) == 0 {
		return
	}
	b.WriteString("\n" + p.paint(ansiRed+ansiBold, "Problems:") + "\n")
	for _, pr := range problems[:min(len(problems), consoleProblems)] {
		fmt.Fprintf(b, "  - %s\n", logtext.Line(elide(pr, whyRunes)))
	}
	if more := len(problems) - consoleProblems; more > 0 {
		fmt.Fprintf(b, "  … and %d more\n", more)
	}
}

// ranked returns the first consoleTop cases by descending and by ascending score, ties in
// report order.
func ranked(cases []*Case) (top, bottom []*Case) {
	top, bottom = slices.Clone(cases), slices.Clone(cases)
	slices.SortStableFunc(top, func(a, b *Case) int { return cmp.Compare(caseScore(b), caseScore(a)) })
	slices.SortStableFunc(bottom, func(a, b *Case) int { return cmp.Compare(caseScore(a), caseScore(b)) })
	return top[:min(len(top), consoleTop)], bottom[:min(len(bottom), consoleTop)]
}

func writeRanked(b io.Writer, recs []*Case, run *Run) {
	for i, r := range recs {
		fmt.Fprintf(b, "  %d. %.3f  %s\n", i+1, caseScore(r), logtext.Line(run.label(r)))
	}
}

func outcomeStyle(o gate.Outcome) string {
	switch o {
	case gate.Pass:
		return ansiGreen + ansiBold
	case gate.Fail, gate.Error:
		return ansiRed + ansiBold
	}
	return ansiYellow + ansiBold
}

type painter struct{ color bool }

func (p *painter) paint(style, s string) string {
	if !p.color {
		return s
	}
	return style + s + ansiReset
}

// ProgressLines prints progress lines that say a target's error once: a case that could not
// run (nothing was invoked: an unset secret, a failed healthcheck) for the reason an earlier
// case of its target printed says so briefly. Calls must not be concurrent.
type ProgressLines struct {
	said map[[2]string]bool // target and error already printed in full
}

// maxSaid bounds what ProgressLines remembers; past it, errors are printed in full.
const maxSaid = 1024

// Print writes rec's progress line.
func (p *ProgressLines) Print(w io.Writer, rec *results.Record, done, total int, withTarget bool) {
	if rec == nil || rec.Attempts > 0 || rec.Error == "" || verdictOf(rec) != results.VerdictError {
		progress(w, rec, done, total, withTarget, "")
		return
	}
	k := [2]string{rec.Target, rec.Error}
	if p.said[k] {
		brief := "same error as above"
		if rec.Target != "" {
			brief = fmt.Sprintf("target %q: same error as above", rec.Target)
		}
		progress(w, rec, done, total, withTarget, brief)
		return
	}
	if p.said == nil {
		p.said = map[[2]string]bool{}
	}
	if len(p.said) < maxSaid {
		p.said[k] = true
	}
	progress(w, rec, done, total, withTarget, "")
}

// progress writes one line for a finished case: "[12/40] PASS 0.950 smoke/case-3 (1.2s)", and
// for a case that did not pass a colon and the reason (brief, when set, for an errored case).
// A total of 0 or less is unknown: "[12/?]". withTarget names the record's target after its
// id, "smoke/case-3 [gpt]".
func progress(w io.Writer, rec *results.Record, done, total int, withTarget bool, brief string) {
	if rec == nil {
		return
	}
	of := "?"
	if total > 0 {
		of = strconv.Itoa(max(total, done))
	}
	// Each part is one safe line (logtext.Line returns the common plain id as it is), and "/"
	// between them cannot join them into a command.
	name := logtext.Line(rec.EvalID)
	if rec.Dataset != "" {
		name = logtext.Line(rec.Dataset) + "/" + name
	}
	if withTarget && rec.Target != "" {
		name += " [" + logtext.Line(rec.Target) + "]"
	}
	vd := verdictOf(rec)
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%s] %s %.3f %s (%s)", done, of, strings.ToUpper(string(vd)), rec.Score, name, formatMS(rec.DurationMS))
	if n := len(rec.Trials); n > 0 {
		fmt.Fprintf(&b, " [%d/%d trials passed", rec.TrialsPassed(), n)
		if rec.Flaky {
			b.WriteString(", flaky")
		}
		b.WriteByte(']')
	}
	var why string
	switch vd {
	case results.VerdictError:
		why = firstError(rec)
		if brief != "" {
			why = brief
		}
	case results.VerdictFail:
		why = failReason(rec)
		if len(rec.Trials) > 0 {
			why = trialsWhy(rec)
		}
	}
	if why != "" {
		b.WriteString(": " + logtext.Line(elide(oneLine(why), 200)))
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(w, b.String())
}

// failReason is a failed case's first miss, else the first miss or reasoning of its
// lowest-scoring evaluator, else its own reasoning.
func failReason(rec *results.Record) string {
	if len(rec.Misses) > 0 {
		return withReason(rec.EvaluatorResults, rec.Misses[0], whyMark)
	}
	var low *results.EvaluatorResult
	for i := range rec.EvaluatorResults {
		if e := &rec.EvaluatorResults[i]; low == nil || e.Score < low.Score {
			low = e
		}
	}
	if low != nil {
		if len(low.Misses) > 0 {
			return low.Name + ": " + withReason([]results.EvaluatorResult{*low}, low.Misses[0], "")
		}
		if low.Reasoning != "" {
			return low.Name + ": " + low.Reasoning
		}
	}
	return rec.Reasoning
}
