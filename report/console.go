package report

import (
	"bufio"
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

// Console writes the end-of-run summary, laid out as AgentV 2.5's: an ERRORS section (id and message
// per errored case), the EVALUATION SUMMARY (counts, mean, median, min, max, sample standard
// deviation, the five-bin histogram, top and bottom three cases), the warnings count and the
// outcome with its reason. color adds ANSI styles; model text never carries its own, as
// escape sequences are stripped from it. Ids, messages and reasons are each flattened to part
// of one line (logtext.Line), so no line of the summary is a workflow command.
func Console(w io.Writer, run *Run, color bool) {
	if run == nil {
		run = &Run{}
	}
	p := &painter{color: color}
	recs := run.sortedCases()
	// Written through a buffer, not built whole: 100,000 errored cases are 100,000 lines.
	b := bufio.NewWriterSize(w, 64<<10)
	defer b.Flush()

	var errored []*Case
	for _, r := range recs {
		if r.Verdict == results.VerdictError {
			errored = append(errored, r)
		}
	}
	if len(errored) > 0 {
		b.WriteString(p.paint(ansiRed+ansiBold, "ERRORS") + "\n")
		for _, r := range errored {
			fmt.Fprintf(b, "  %s %s: %s\n", p.paint(ansiRed, "✗"), logtext.Line(run.label(r)), logtext.Line(truncate(r.Why, whyRunes)))
		}
		b.WriteString("\n")
	}

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
	b.WriteString("\n")
	s := caseStats(recs)
	if s.Count > 0 {
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
		b.WriteString("Bottom 3 cases:\n")
		writeRanked(b, bottom, run)
	}
	if n := warningCount(run); n > 0 {
		fmt.Fprintf(b, "\n%s\n", p.paint(ansiYellow, fmt.Sprintf("Warnings: %d", n)))
	}
	o := run.Decision.Outcome
	name := strings.ToUpper(string(o))
	if name == "" {
		name = "UNKNOWN"
	}
	line := "Outcome: " + name
	if run.Decision.Reason != "" {
		line += " — " + logtext.Line(run.Decision.Reason)
	}
	fmt.Fprintf(b, "\n%s\n", p.paint(outcomeStyle(o), line))
}

// ranked returns the best and the worst cases, as stable sorts by descending and ascending
// score would begin: ties keep the report order, and the worst list starts with the lowest.
// One pass over the cases, keeping the first few of each.
func ranked(cases []*Case) (top, bottom []*Case) {
	for _, c := range cases {
		top = keepFirst(top, c, func(a, b *Case) bool { return caseScore(a) > caseScore(b) })
		bottom = keepFirst(bottom, c, func(a, b *Case) bool { return caseScore(a) < caseScore(b) })
	}
	return top, bottom
}

// keepFirst inserts c into the ranked list after every case it does not beat, keeping at
// most consoleTop cases.
func keepFirst(list []*Case, c *Case, beats func(a, b *Case) bool) []*Case {
	i := len(list)
	for i > 0 && beats(c, list[i-1]) {
		i--
	}
	if i >= consoleTop {
		return list
	}
	list = slices.Insert(list, i, c)
	return list[:min(len(list), consoleTop)]
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

// Progress writes one line for a finished case, for output that is not a terminal:
// "[12/40] PASS 0.950 smoke/case-3 (1.2s)", with the error's first part for errored cases.
// A total of 0 or less means the total is unknown: "[12] …".
func Progress(w io.Writer, rec *results.Record, done, total int) {
	if rec == nil {
		return
	}
	// Built by appending, not fmt: a large run prints one line per case.
	b := make([]byte, 0, 96)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(done), 10)
	if total > 0 {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(total), 10)
	}
	b = append(b, "] "...)
	vd := verdictOf(rec)
	switch vd {
	case results.VerdictPass:
		b = append(b, "PASS"...)
	case results.VerdictFail:
		b = append(b, "FAIL"...)
	default:
		b = append(b, "ERROR"...)
	}
	b = append(b, ' ')
	b = strconv.AppendFloat(b, rec.Score, 'f', 3, 64)
	b = append(b, ' ')
	// Each part is one safe line (logtext.Line returns the common plain id as it is), and "/"
	// between them cannot join them into a command.
	if rec.Dataset != "" {
		b = append(b, logtext.Line(rec.Dataset)...)
		b = append(b, '/')
	}
	b = append(b, logtext.Line(rec.EvalID)...)
	b = append(b, " ("...)
	b = append(b, formatMS(rec.DurationMS)...)
	b = append(b, ')')
	if vd == results.VerdictError {
		if msg := firstError(rec); msg != "" {
			b = append(b, ": "...)
			b = append(b, logtext.Line(truncate(oneLine(msg), 200))...)
		}
	}
	b = append(b, '\n')
	_, _ = w.Write(b)
}
