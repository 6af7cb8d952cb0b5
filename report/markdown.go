package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// maxEvaluatorColumns is how many evaluators get a score column each; with more, one
// "Evaluators" column lists them all so the table stays readable.
const maxEvaluatorColumns = 6

// view is a run prepared for Markdown: the fixed parts rendered, the cases sorted and
// classified. Case rows and details are rendered on demand, so memory follows the budget and
// not the number of cases. layout decides how much of it fits.
type view struct {
	run      *Run
	lim      limits
	head     string   // title, headline, outcome, settings, distribution
	footer   string   // closing line
	warnings []string // one list item per diagnostic, sorted by position
	problems int      // error diagnostics among warnings
	fail     []*Case
	pass     []*Case
	// failDetailed and passDetailed are the cases whose details the level shows.
	failDetailed, passDetailed []*Case
	failHead                   string // failure table header (with the "Why" column)
	passHead                   string
	runURL                     string

	cols                 []string // evaluator score columns; nil: one "Evaluators" column
	showTokens, showCost bool
	why                  bool // failure rows carry a "Why" column
}

// limits bound one case's model text on a surface, in characters.
type limits struct {
	answer, reasoning, item, err int
	items                        int // hits or misses listed per evaluator
	warnings                     int // diagnostics listed
}

// buildView prepares a run for rendering.
func buildView(run *Run, marker string, lim limits) *view {
	recs := run.sortedCases()
	v := &view{run: run, lim: lim, runURL: run.Links.runURL(), cols: evaluatorColumns(recs)}
	v.showTokens = slices.ContainsFunc(recs, func(c *Case) bool { _, _, ok := c.tokens(); return ok })
	v.showCost = slices.ContainsFunc(recs, func(c *Case) bool { _, ok := c.cost(); return ok })
	v.why = run.Details != DetailsNone
	v.failHead = tableHeader(v.cols, v.showTokens, v.showCost, v.why)
	v.passHead = tableHeader(v.cols, v.showTokens, v.showCost, false)
	for _, c := range recs {
		if c.Verdict == results.VerdictPass {
			v.pass = append(v.pass, c)
		} else {
			v.fail = append(v.fail, c)
		}
	}
	v.failDetailed, v.passDetailed = v.fail, v.pass
	if !run.Details.shows(results.VerdictFail) {
		v.failDetailed = nil
	}
	if !run.Details.shows(results.VerdictPass) {
		v.passDetailed = nil
	}
	for _, d := range collectWarnings(run, recs) {
		if d.IsError() {
			v.problems++
		}
		v.warnings = append(v.warnings, warningItem(run.Links, d, lim))
	}
	v.head = headSection(run, marker, recs)
	v.footer = footerLine(run, v.runURL)
	return v
}

// row renders a case's table row.
func (v *view) row(c *Case) string {
	return tableRow(v.run, c, c.Verdict, v.cols, v.showTokens, v.showCost, v.why && c.Verdict != results.VerdictPass, v.lim)
}

// detailsOf renders a case's collapsed details block.
func (v *view) detailsOf(c *Case) string {
	// A Collector drops passing cases' text only when their rows cannot fit, and then their
	// details are never rendered; record() is a guard, not a path reports take.
	return detailsBlock(v.run, c.record(), c.Verdict, v.run.label(c), v.lim)
}

// evaluatorColumns lists the top-level evaluator names in order of first appearance, or nil
// when there are more than fit as columns.
func evaluatorColumns(cases []*Case) []string {
	var names []string
	for _, r := range cases {
		for _, e := range r.Evaluators {
			if !slices.Contains(names, e.Name) {
				names = append(names, e.Name)
			}
		}
	}
	if len(names) > maxEvaluatorColumns {
		return nil
	}
	return names
}

func tableHeader(cols []string, showTokens, showCost, why bool) string {
	h := []string{"", "Case", "Source", "Score"}
	if cols == nil {
		h = append(h, "Evaluators")
	}
	for _, c := range cols {
		h = append(h, mdInline(c))
	}
	h = append(h, "Time")
	if showTokens {
		h = append(h, "Tokens in/out")
	}
	if showCost {
		h = append(h, "Cost")
	}
	if why {
		h = append(h, "Why")
	}
	sep := make([]string, len(h))
	for i := range sep {
		sep[i] = "---"
		if i >= 3 && h[i] != "Why" && h[i] != "Evaluators" {
			sep[i] = "--:"
		}
	}
	return "| " + strings.Join(h, " | ") + " |\n|" + strings.Join(sep, "|") + "|\n"
}

func tableRow(run *Run, r *Case, vd results.Verdict, cols []string, showTokens, showCost, why bool, lim limits) string {
	cells := []string{verdictMark(vd), mdInline(truncate(r.EvalID, 120)),
		mdLink(position(r.File, int(r.Line)), run.Links.sourceURL(r.File, int(r.Line))), fmt.Sprintf("%.3f", r.Score)}
	if cols == nil {
		var parts []string
		for _, e := range r.Evaluators {
			parts = append(parts, mdInline(truncate(e.Name, 60))+" "+evaluatorScore(e))
		}
		cells = append(cells, strings.Join(parts, ", "))
	}
	for _, c := range cols {
		cell := "–"
		for _, e := range r.Evaluators {
			if e.Name == c {
				cell = evaluatorScore(e)
				break
			}
		}
		cells = append(cells, cell)
	}
	cells = append(cells, formatMS(r.DurationMS))
	if showTokens {
		cell := "–"
		if in, out, ok := r.tokens(); ok {
			cell = thousands(int(in)) + " / " + thousands(int(out))
		}
		cells = append(cells, cell)
	}
	if showCost {
		cell := "–"
		if usd, ok := r.cost(); ok {
			cell = fmt.Sprintf("$%.4f", usd)
		}
		cells = append(cells, cell)
	}
	if why {
		cells = append(cells, mdInline(truncate(r.Why, min(lim.item, 160))))
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

func evaluatorScore(e EvaluatorScore) string {
	if e.Errored {
		return fmt.Sprintf("%.3f 💥", e.Score)
	}
	return fmt.Sprintf("%.3f", e.Score)
}

func verdictMark(v results.Verdict) string {
	switch v {
	case results.VerdictPass:
		return "✅"
	case results.VerdictFail:
		return "❌"
	}
	return "💥"
}

func outcomeMark(o gate.Outcome) string {
	switch o {
	case gate.Pass:
		return "✅"
	case gate.Fail:
		return "❌"
	case gate.Error:
		return "💥"
	case gate.Invalid:
		return "⛔"
	case gate.Skipped:
		return "⏭️"
	}
	return "❔"
}

func detailsBlock(run *Run, r *results.Record, vd results.Verdict, label string, lim limits) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<details>\n<summary>%s %s · %.3f · %s</summary>\n\n", verdictMark(vd), mdInline(truncate(label, 200)), r.Score, vd)
	meta := []string{"Source: " + mdLink(position(r.File, r.Line), run.Links.sourceURL(r.File, r.Line))}
	if r.Target != "" {
		meta = append(meta, "target "+mdInline(r.Target))
	}
	meta = append(meta, formatMS(r.DurationMS))
	if r.Attempts > 1 {
		meta = append(meta, fmt.Sprintf("%d attempts", r.Attempts))
	}
	if t := r.TraceSummary; t != nil && t.TokenUsage != nil {
		meta = append(meta, fmt.Sprintf("%s in / %s out tokens", thousands(int(t.TokenUsage.Input)), thousands(int(t.TokenUsage.Output))))
	}
	if t := r.TraceSummary; t != nil && t.CostUSD != nil {
		meta = append(meta, fmt.Sprintf("$%.4f", *t.CostUSD))
	}
	b.WriteString(strings.Join(meta, " · ") + "\n\n")
	if r.Error != "" {
		b.WriteString("**Error:** " + mdInline(truncate(r.Error, lim.err)) + "\n\n")
	}
	if len(r.EvaluatorResults) == 0 {
		writeFindings(&b, r.Hits, r.Misses, r.Reasoning, lim)
	}
	perEvaluator := evaluatorsHaveReasoning(r.EvaluatorResults)
	for _, e := range r.EvaluatorResults {
		fmt.Fprintf(&b, "**%s** (%s) — %.3f %s\n\n", mdInline(truncate(e.Name, 100)), mdInline(truncate(e.Type, 40)), e.Score, mdInline(e.Verdict))
		if e.Error != "" {
			b.WriteString("**Error:** " + mdInline(truncate(e.Error, lim.err)) + "\n\n")
		}
		writeFindings(&b, e.Hits, e.Misses, e.Reasoning, lim)
	}
	if len(r.EvaluatorResults) > 0 && !perEvaluator && strings.TrimSpace(r.Reasoning) != "" {
		writePre(&b, "Reasoning", r.Reasoning, lim.reasoning)
	}
	if strings.TrimSpace(r.CandidateAnswer) != "" {
		writePre(&b, "Answer", r.CandidateAnswer, lim.answer)
	}
	b.WriteString("</details>\n\n")
	return b.String()
}

func writeFindings(b *strings.Builder, hits, misses []string, reasoning string, lim limits) {
	writeItems(b, "✔️", hits, lim)
	writeItems(b, "✖️", misses, lim)
	if len(hits)+len(misses) > 0 {
		b.WriteByte('\n')
	}
	if strings.TrimSpace(reasoning) != "" {
		writePre(b, "Reasoning", reasoning, lim.reasoning)
	}
}

func writeItems(b *strings.Builder, mark string, items []string, lim limits) {
	for i, it := range items {
		if i == lim.items {
			fmt.Fprintf(b, "- %s %d more\n", mark, len(items)-i)
			return
		}
		fmt.Fprintf(b, "- %s %s\n", mark, mdInline(truncate(it, lim.item)))
	}
}

// writePre writes a titled <pre> block. A blank line before it starts a new HTML block that
// only a literal </pre> can end, and mdBlock leaves no `<` in the text.
func writePre(b *strings.Builder, title, text string, limit int) {
	fmt.Fprintf(b, "%s:\n\n<pre>\n%s\n</pre>\n\n", title, mdBlock(truncate(strings.Trim(text, "\n"), limit)))
}

func warningItem(l Links, d suite.Diagnostic, lim limits) string {
	mark := "⚠️"
	if d.IsError() {
		mark = "⛔"
	}
	pos := d.File
	if d.Line > 0 {
		pos = fmt.Sprintf("%s:%d", d.File, d.Line)
		if d.Col > 0 {
			pos += fmt.Sprintf(":%d", d.Col)
		}
	}
	s := "- " + mark + " "
	if pos != "" {
		s += mdLink(pos, l.sourceURL(d.File, d.Line)) + ": "
	}
	s += mdInline(truncate(d.Message, lim.err))
	if d.CaseID != "" {
		s += " (case " + mdInline(truncate(d.CaseID, 120)) + ")"
	}
	if d.Kind != "" {
		s += " <sub>" + mdInline(d.Kind) + "</sub>"
	}
	return s + "\n"
}

func headSection(run *Run, marker string, recs []*Case) string {
	var b strings.Builder
	if marker != "" {
		b.WriteString(strings.TrimRight(marker, "\n") + "\n")
	}
	o := run.Decision.Outcome
	name := string(o)
	if name == "" {
		name = "unknown"
	}
	fmt.Fprintf(&b, "## %s AgentV evals: %s\n\n", outcomeMark(o), name)
	c := run.Counts
	if c.Total == 0 && len(recs) == 0 {
		if c.Skipped > 0 {
			fmt.Fprintf(&b, "**No eval case ran: %s %s skipped.**\n\n", thousands(c.Skipped), plural(c.Skipped, "case", "cases"))
		} else {
			b.WriteString("**No eval case ran.**\n\n")
		}
		fmt.Fprintf(&b, "**Outcome: %s** — %s\n\n", name, mdInline(truncate(run.Decision.Reason, 2000)))
		b.WriteString(settingsLine(run, recs) + "\n\n")
		return b.String()
	}
	cases := fmt.Sprintf("**%s %s**", thousands(c.Total), plural(c.Total, "case", "cases"))
	if of := c.OfPlanned(thousands); of != "" { // a run that stopped early says how far it got
		cases = fmt.Sprintf("**%s cases**", of)
	}
	line := []string{cases,
		fmt.Sprintf("✅ %s passed", thousands(c.Passed)),
		fmt.Sprintf("❌ %s failed", thousands(c.Failed)),
		fmt.Sprintf("💥 %s errored", thousands(c.Errors))}
	if c.Skipped > 0 {
		line = append(line, fmt.Sprintf("⏭️ %s skipped", thousands(c.Skipped)))
	}
	rate := "–"
	if c.Total > 0 {
		rate = fmt.Sprintf("%.1f%%", math.Floor(float64(c.Passed)/float64(c.Total)*1000)/10)
	}
	line = append(line, "pass rate **"+rate+"**", fmt.Sprintf("mean score **%.3f**", c.MeanScore))
	b.WriteString(strings.Join(line, " · ") + "\n\n")
	fmt.Fprintf(&b, "**Outcome: %s** — %s\n\n", name, mdInline(truncate(run.Decision.Reason, 2000)))
	b.WriteString(settingsLine(run, recs) + "\n\n")
	if len(recs) > 0 {
		b.WriteString(distribution(caseStats(recs)))
	}
	return b.String()
}

func settingsLine(run *Run, recs []*Case) string {
	g := run.Gate
	parts := []string{"case threshold " + formatFloat(g.CaseThreshold)}
	if g.MinScore != nil {
		parts = append(parts, "min-score "+formatFloat(*g.MinScore))
	}
	parts = append(parts, fmt.Sprintf("max-failures %d", g.MaxFailures), fmt.Sprintf("max-errors %d", g.MaxErrors))
	if len(run.Targets) > 0 {
		var ts []string
		for _, t := range run.Targets[:min(len(run.Targets), 20)] {
			ts = append(ts, mdInline(t))
		}
		parts = append(parts, plural(len(ts), "target ", "targets ")+strings.Join(ts, ", "))
	}
	var in, out int64
	var dollars float64
	var haveTokens, haveCost bool
	for _, r := range recs {
		if i, o, ok := r.tokens(); ok {
			in, out, haveTokens = in+i, out+o, true
		}
		if usd, ok := r.cost(); ok {
			dollars, haveCost = dollars+usd, true
		}
	}
	if haveTokens {
		parts = append(parts, fmt.Sprintf("%s in / %s out tokens", thousands(int(in)), thousands(int(out))))
	}
	if haveCost {
		parts = append(parts, fmt.Sprintf("$%.4f", dollars))
	}
	if run.Duration > 0 {
		parts = append(parts, formatMS(run.Duration.Milliseconds()))
	}
	return strings.Join(parts, " · ")
}

// distribution draws the five-bin score histogram as a text picture.
func distribution(s ScoreStats) string {
	const width = 20
	peak := slices.Max(s.Histogram[:])
	var b strings.Builder
	b.WriteString("```text\n")
	for i := Bins - 1; i >= 0; i-- {
		n := s.Histogram[i]
		bar := 0
		if peak > 0 {
			bar = int(math.Round(float64(n) / float64(peak) * width))
		}
		if n > 0 && bar == 0 {
			bar = 1
		}
		fmt.Fprintf(&b, "%s │%s%s %d\n", BinLabels[i], strings.Repeat("█", bar), strings.Repeat(" ", width-bar), n)
	}
	b.WriteString("```\n\n")
	return b.String()
}

func footerLine(run *Run, runURL string) string {
	parts := []string{"agentv"}
	if run.Version != "" {
		parts[0] += " " + mdInline(run.Version)
	}
	if runURL != "" {
		parts = append(parts, "[workflow run]("+runURL+")")
	}
	parts = append(parts, "full results in results.jsonl and junit.xml")
	return "<sub>" + strings.Join(parts, " · ") + "</sub>\n"
}
