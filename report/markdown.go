package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
	"github.com/agentv/action/stats"
	"github.com/agentv/action/suite"
)

// groupMin is how many failed cases sharing a reason make one row: "13 cases: 401
// Unauthorized" reads faster than thirteen rows.
const groupMin = 3

// groupListMax is how many cases a grouped row names; the rest are counted.
const groupListMax = 100

// view is a run prepared for Markdown: the fixed parts rendered, the cases sorted and
// classified; rows and details are rendered on demand, so memory follows the budget.
type view struct {
	run      *Run
	lim      limits
	head     string   // title, headline, outcome, settings
	overview string   // score chart, per-dataset and per-evaluator tables: after the failures
	trend    string   // the per-dataset trend over the history's runs, "" without history
	footer   string   // closing line
	warnings []string // one list item per diagnostic, sorted by position
	problems int      // error diagnostics among warnings
	fail     []*Case  // errored cases first, then failed ones by ascending score
	pass     []*Case
	// failRows are the failure table's rows in order: one case, or the cases sharing a reason.
	failRows [][]*Case
	// failDetailed and passDetailed are the cases whose details the level shows.
	failDetailed, passDetailed []*Case
	failHead                   string // failure table header (with the "Why" column)
	passHead                   string
	runURL                     string

	showTokens, showCost bool
	why                  bool // failure rows carry a "Why" column
	evaluators           bool // rows without a Why list each evaluator's score
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
	v := &view{run: run, lim: lim, runURL: run.Links.runURL()}
	v.showTokens = slices.ContainsFunc(recs, func(c *Case) bool { return c.Tokens != nil })
	v.showCost = slices.ContainsFunc(recs, func(c *Case) bool { return c.CostUSD != nil })
	v.why = run.Details != DetailsNone
	v.evaluators = slices.ContainsFunc(recs, func(c *Case) bool { return len(c.Evaluators) > 0 })
	v.failHead = tableHeader(v.why, v.showTokens, v.showCost, v.evaluators)
	v.passHead = tableHeader(false, v.showTokens, v.showCost, v.evaluators)
	for _, c := range recs {
		if c.Verdict == results.VerdictPass {
			v.pass = append(v.pass, c)
		} else {
			v.fail = append(v.fail, c)
		}
	}
	slices.SortStableFunc(v.fail, failOrder)
	v.failRows = groupRows(v.fail, v.why)
	if run.Details.shows(results.VerdictFail) {
		v.failDetailed = v.fail
	}
	if run.Details.shows(results.VerdictPass) {
		v.passDetailed = v.pass
	}
	for _, d := range collectWarnings(run, recs) {
		if d.IsError() {
			v.problems++
		}
		v.warnings = append(v.warnings, warningItem(run.Links, d, lim))
	}
	v.head = headSection(run, marker, recs) + baselineSection(v)
	v.trend = trendSection(run)
	if len(recs) > 0 {
		if o := scoreChart(caseStats(recs)) + datasetTable(recs) + evaluatorTable(recs); o != "" {
			v.overview = "### 📊 Scores\n\n" + o
		}
	}
	v.footer = footerLine(run, v.runURL)
	return v
}

// groupRows makes the failure table's rows: cases sharing a verdict and a reason with at
// least groupMin-1 others share one row, placed where the first of them would be.
func groupRows(fail []*Case, byReason bool) [][]*Case {
	type key struct {
		v   results.Verdict
		why string
	}
	count := map[key]int{}
	if byReason {
		for _, c := range fail {
			if c.Why != "" {
				count[key{c.Verdict, c.Why}]++
			}
		}
	}
	var rows [][]*Case
	at := map[key]int{}
	for _, c := range fail {
		k := key{c.Verdict, c.Why}
		if count[k] < groupMin || c.Flaky { // a flaky case keeps its row and its marker
			rows = append(rows, []*Case{c})
			continue
		}
		if i, ok := at[k]; ok {
			rows[i] = append(rows[i], c)
			continue
		}
		at[k] = len(rows)
		rows = append(rows, []*Case{c})
	}
	return rows
}

// casesIn counts the cases in rows.
func casesIn(rows [][]*Case) int {
	n := 0
	for _, r := range rows {
		n += len(r)
	}
	return n
}

// row renders a failure table row: one case, or a group sharing a reason.
func (v *view) failRow(cases []*Case) string {
	if len(cases) == 1 {
		return v.row(cases[0])
	}
	c := cases[0]
	var list []string
	for _, m := range cases[:min(len(cases), groupListMax)] {
		list = append(list, v.caseLink(m)+v.sinceMark(m, true))
	}
	if n := len(cases) - groupListMax; n > 0 {
		list = append(list, fmt.Sprintf("and %s more", thousands(n)))
	}
	lo, hi := cases[0].Score, cases[0].Score
	for _, m := range cases {
		lo, hi = min(lo, m.Score), max(hi, m.Score)
	}
	score := fmt.Sprintf("%.3f", lo)
	if hi != lo {
		score += "–" + fmt.Sprintf("%.3f", hi)
	}
	cells := []string{verdictMark(c.Verdict),
		fmt.Sprintf("<details><summary>%s cases</summary>%s</details>", thousands(len(cases)), strings.Join(list, ", ")),
		score, mdInline(elide(c.Why, min(v.lim.item, 200)))}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// caseLink is the case's label linked to its source line (or the label alone without links).
func (v *view) caseLink(c *Case) string {
	return mdLink(truncate(v.run.label(c), 120), v.run.Links.sourceURL(c.File, int(c.Line)))
}

// row renders a case's table row: verdict, case linked to its source, score, then for a
// failure the reason, else each evaluator's score, the time and the usage.
func (v *view) row(c *Case) string {
	cells := []string{verdictMark(c.Verdict), v.caseLink(c) + trialsMark(c) + warningMark(c), fmt.Sprintf("%.3f", c.Score)}
	if c.Verdict != results.VerdictPass {
		cells[1] += v.sinceMark(c, false)
	}
	if c.Verdict != results.VerdictPass && v.why {
		return "| " + strings.Join(append(cells, mdInline(elide(c.Why, min(v.lim.item, 200)))), " | ") + " |\n"
	}
	if v.evaluators {
		var parts []string
		for _, e := range c.Evaluators {
			parts = append(parts, mdInline(truncate(e.Name, 40))+" "+evaluatorScore(e))
		}
		if parts == nil {
			parts = []string{"–"}
		}
		cells = append(cells, strings.Join(parts, ", "))
	}
	cells = append(cells, formatMS(c.DurationMS))
	if v.showTokens || v.showCost {
		var usage []string
		if t := c.Tokens; t != nil {
			usage = append(usage, thousands(int(t.Input))+" / "+thousands(int(t.Output))+" tokens")
		}
		if c.CostUSD != nil {
			usage = append(usage, fmt.Sprintf("$%.4f", *c.CostUSD))
		}
		if usage == nil {
			usage = []string{"–"}
		}
		cells = append(cells, strings.Join(usage, " · "))
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// detailsOf renders a case's collapsed details block.
func (v *view) detailsOf(c *Case) string {
	// A Collector drops passing cases' text only when their rows cannot fit (record() is a guard).
	return detailsBlock(v.run, c.record(), c.Verdict, v.run.label(c), v.lim)
}

// tableHeader is a case table's header: the failure table ends with the reason (why), the
// others show evaluators, time and usage. At most six columns fit a 900-pixel column.
func tableHeader(why, showTokens, showCost, evaluators bool) string {
	h := []string{"", "Case", "Score"}
	if why {
		h = append(h, "Why")
	} else {
		if evaluators {
			h = append(h, "Evaluators")
		}
		h = append(h, "Time")
		if showTokens || showCost {
			h = append(h, "Usage")
		}
	}
	sep := make([]string, len(h))
	for i := range sep {
		sep[i] = "---"
		if i >= 2 && h[i] != "Why" && h[i] != "Evaluators" {
			sep[i] = "--:"
		}
	}
	return "| " + strings.Join(h, " | ") + " |\n|" + strings.Join(sep, "|") + "|\n"
}

// trialsMark follows a case's name in its row: "flaky" and how many of its trials passed,
// for a case whose trials disagreed; "" otherwise.
func trialsMark(c *Case) string {
	if !c.Flaky {
		return ""
	}
	return fmt.Sprintf(" 🎲 **flaky** <sub>%d/%d trials passed</sub>", c.TrialsPassed, c.Trials)
}

// warningMark shows a case's first load-time warning on its row (a missing input file, say):
// a pass without the file it was meant to read is no pass to trust blindly.
func warningMark(c *Case) string {
	ws := c.warnings()
	if len(ws) == 0 {
		return ""
	}
	more := ""
	if len(ws) > 1 {
		more = fmt.Sprintf(" (+%d more)", len(ws)-1)
	}
	return " ⚠️ <sub>" + mdInline(elide(oneLine(ws[0].Message), 200)) + more + "</sub>"
}

func evaluatorScore(e EvaluatorScore) string {
	if e.Errored {
		return fmt.Sprintf("%.3f 💥", e.Score)
	}
	return fmt.Sprintf("%.3f", e.Score)
}

var verdictMarks = map[results.Verdict]string{results.VerdictPass: "✅", results.VerdictFail: "❌"}

func verdictMark(v results.Verdict) string { return cmp.Or(verdictMarks[v], "💥") }

var outcomeMarks = map[gate.Outcome]string{gate.Pass: "✅", gate.Fail: "❌", gate.Error: "💥", gate.Invalid: "⛔", gate.Skipped: "⏭️"}

func outcomeMark(o gate.Outcome) string { return cmp.Or(outcomeMarks[o], "❔") }

func detailsBlock(run *Run, r *results.Record, vd results.Verdict, label string, lim limits) string {
	var b strings.Builder
	flaky := ""
	if r.Flaky {
		flaky = " · flaky"
	}
	fmt.Fprintf(&b, "<details>\n<summary>%s %s · %.3f · %s%s</summary>\n\n", verdictMark(vd), mdInline(truncate(label, 200)), r.Score, vd, flaky)
	meta := []string{"Source: " + mdLink(position(r.File, r.Line), run.Links.sourceURL(r.File, r.Line))}
	if r.Dataset != "" {
		meta = append(meta, "dataset "+mdInline(truncate(r.Dataset, 100)))
	}
	if r.Target != "" {
		meta = append(meta, "target "+mdInline(r.Target))
	}
	meta = append(meta, formatMS(r.DurationMS))
	if r.Attempts > max(1, len(r.Trials)) { // one invocation per trial is no retry
		meta = append(meta, fmt.Sprintf("%d attempts", r.Attempts))
	}
	if t := r.TraceSummary; t != nil && t.TokenUsage != nil {
		meta = append(meta, fmt.Sprintf("%s in / %s out tokens", thousands(int(t.TokenUsage.Input)), thousands(int(t.TokenUsage.Output))))
	}
	if t := r.TraceSummary; t != nil && t.CostUSD != nil {
		meta = append(meta, fmt.Sprintf("$%.4f", *t.CostUSD))
	}
	b.WriteString(strings.Join(meta, " · ") + "\n\n")
	if len(r.Trials) > 0 {
		b.WriteString(trialsLine(r) + "\n\n")
	}
	// An error is shown once: the runner also records it as a miss ("Error: …") and as the
	// answer ("Error occurred: …"), which the case never gave.
	seen := newSeen(r.Error)
	if r.Error != "" {
		b.WriteString("**Error:** " + mdInline(elide(r.Error, lim.err)) + "\n\n")
	}
	if len(r.EvaluatorResults) == 0 {
		writeFindings(&b, r.Hits, seen.drop(r.Misses), seen.text(r.Reasoning), lim)
	}
	perEvaluator := evaluatorsHaveReasoning(r.EvaluatorResults)
	for _, e := range r.EvaluatorResults {
		fmt.Fprintf(&b, "**%s** (%s) — %.3f %s\n\n", mdInline(truncate(e.Name, 100)), mdInline(truncate(e.Type, 40)), e.Score, mdInline(e.Verdict))
		if e.Error != "" && !seen.has(e.Error) {
			b.WriteString("**Error:** " + mdInline(elide(e.Error, lim.err)) + "\n\n")
		}
		writeFindings(&b, e.Hits, seen.drop(e.Misses), seen.text(e.Reasoning), lim)
	}
	if len(r.EvaluatorResults) > 0 && !perEvaluator {
		if t := seen.text(r.Reasoning); strings.TrimSpace(t) != "" {
			writeText(&b, "Reasoning", t, lim.reasoning)
		}
	}
	// An errored case's "answer" is often the error again ("Error occurred: …"): shown once.
	a := r.CandidateAnswer
	echoesError := r.Error != "" && seen.has(strings.TrimPrefix(strings.TrimSpace(a), "Error occurred: "))
	if strings.TrimSpace(a) != "" && !echoesError {
		writeText(&b, "Answer", a, lim.answer)
	}
	b.WriteString("</details>\n\n")
	return b.String()
}

// trialsLine lists a case's trials: strategy, passes, each trial's verdict and score, and the
// interval or the cost limit when they apply.
func trialsLine(r *results.Record) string {
	strategy := cmp.Or(r.TrialStrategy, suite.TrialsPassAtK)
	head := fmt.Sprintf("**Trials** (%s): %d/%d passed", mdInline(strategy), r.TrialsPassed(), len(r.Trials))
	if r.Flaky {
		head += ", flaky"
	}
	var each []string
	for _, t := range r.Trials[:min(len(r.Trials), suite.MaxTrials)] {
		each = append(each, fmt.Sprintf("%s %.3f", verdictMark(t.Verdict), t.Score))
	}
	head += " — " + strings.Join(each, " · ")
	if iv := r.TrialInterval; iv != nil {
		head += fmt.Sprintf(" · 95%% interval %.3f–%.3f around the mean %.3f", iv.Low, iv.High, iv.Mean)
	}
	if r.TrialsCostLimited {
		head += " · stopped at the cost limit"
	}
	if len(r.Trials) > 1 {
		head += fmt.Sprintf(" · details below are from trial %d, the best", r.Trials[results.BestTrial(r.Trials)].Trial)
	}
	return head
}

// seenError recognises texts that only repeat a case's error.
type seenError struct{ err string }

func newSeen(err string) seenError { return seenError{strings.TrimSpace(err)} }

// has reports whether s is the error, possibly behind an "Error:" label.
func (e seenError) has(s string) bool {
	if e.err == "" {
		return false
	}
	s = strings.TrimSpace(s)
	for _, p := range []string{"Error occurred:", "Error:", "error:"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	return s == e.err
}

// drop returns items without those that repeat the error.
func (e seenError) drop(items []string) []string {
	return slices.DeleteFunc(slices.Clone(items), e.has)
}

// text returns s, or "" when it only repeats the error.
func (e seenError) text(s string) string {
	if e.has(s) {
		return ""
	}
	return s
}

func writeFindings(b *strings.Builder, hits, misses []string, reasoning string, lim limits) {
	writeItems(b, "✔️", hits, lim)
	writeItems(b, "✖️", misses, lim)
	if len(hits)+len(misses) > 0 {
		b.WriteByte('\n')
	}
	if strings.TrimSpace(reasoning) != "" {
		writeText(b, "Reasoning", reasoning, lim.reasoning)
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

// writeText writes a titled quote of model text as one Markdown line (mdWrapped), which wraps
// at the column's width instead of scrolling as a <pre> would, and starts no Markdown block.
func writeText(b *strings.Builder, title, text string, limit int) {
	fmt.Fprintf(b, "%s:\n> %s\n\n", title, mdWrapped(truncate(strings.Trim(text, "\n"), limit)))
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
	s += mdInline(elide(d.Message, lim.err))
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
	name := cmp.Or(string(o), "unknown")
	if run.Cancelled {
		name = "cancelled" // as the console says; the gate's outcome (and exit code) stay invalid
	}
	fmt.Fprintf(&b, "## %s AgentV evals: %s\n\n", outcomeMark(o), name)
	c := run.Counts
	switch {
	case c.Total == 0 && len(recs) == 0 && c.Skipped > 0:
		fmt.Fprintf(&b, "**No eval case ran: %s %s skipped.**\n\n", thousands(c.Skipped),
			textfmt.Plural(c.Skipped, "case", "cases"))
	case c.Total == 0 && len(recs) == 0:
		b.WriteString("**No eval case ran.**\n\n")
	default:
		cases := fmt.Sprintf("**%s %s**", thousands(c.Total), textfmt.Plural(c.Total, "case", "cases"))
		if of := c.OfPlanned(thousands); of != "" { // a run that stopped early says how far it got
			cases = fmt.Sprintf("**%s cases**", of)
		}
		line := []string{cases, "✅ " + thousands(c.Passed) + " passed", "❌ " + thousands(c.Failed) + " failed",
			"💥 " + thousands(c.Errors) + " errored"}
		if c.Skipped > 0 {
			line = append(line, "⏭️ "+thousands(c.Skipped)+" skipped")
		}
		if n := flakyIn(recs); n > 0 {
			line = append(line, "🎲 "+thousands(n)+" flaky")
		}
		line = append(line, "pass rate **"+passRate(c.Passed, c.Total)+"**", fmt.Sprintf("mean score **%.3f**", c.MeanScore))
		b.WriteString(strings.Join(line, " · ") + "\n\n" + baselineHeadline(run))
	}
	fmt.Fprintf(&b, "**Outcome: %s** — %s\n\n", name, mdInline(truncate(run.Decision.Reason, 2000)))
	b.WriteString(flakyLine(run, recs) + settingsLine(run, recs) + "\n\n")
	b.WriteString(htmlReportLine(run.Links))
	return b.String()
}

// flakyNamed is how many flaky cases the headline names.
const flakyNamed = 10

// flakyLine names the flaky cases under the headline, where a reviewer sees them even when
// their rows are folded away, each with its verdict and trials passed; "" when there are none.
func flakyLine(run *Run, recs []*Case) string {
	var items []string
	n := 0
	for _, c := range recs {
		if !c.Flaky {
			continue
		}
		n++
		if len(items) < flakyNamed {
			items = append(items, fmt.Sprintf("%s %s %d/%d", verdictMark(c.Verdict),
				mdLink(truncate(run.label(c), 120), run.Links.sourceURL(c.File, int(c.Line))), c.TrialsPassed, c.Trials))
		}
	}
	if n == 0 {
		return ""
	}
	if more := n - len(items); more > 0 {
		items = append(items, fmt.Sprintf("and %s more", thousands(more)))
	}
	return fmt.Sprintf("🎲 **Flaky** (trials disagreed; each counts by its aggregate verdict): %s\n\n", strings.Join(items, " · "))
}

// passRate is passed/total as a percentage rounded to the nearest tenth, except that it
// reads 100% only when every case passed and 0% only when none did.
func passRate(passed, total int) string {
	if total <= 0 {
		return "–"
	}
	r := math.Round(float64(passed)/float64(total)*1000) / 10
	switch {
	case passed < total && r >= 100:
		r = 99.9
	case passed > 0 && r <= 0:
		r = 0.1
	}
	return fmt.Sprintf("%.1f%%", r)
}

// breakdownMax is how many datasets or evaluators a breakdown table lists (the lowest
// means first); the rest are counted.
const breakdownMax = 20

type breakdown struct {
	name                  string
	cases, passed, errors int
	sum                   stats.Sum
}

func (g *breakdown) mean() float64 { return g.sum.Mean(max(g.cases, 1)) }

// breakdowns are groups by name, in the order their names first come.
type breakdowns struct {
	list []*breakdown
	at   map[string]*breakdown
}

// get returns the group of name, new when name comes first.
func (bs *breakdowns) get(name string) *breakdown {
	g := bs.at[name]
	if g == nil {
		if bs.at == nil {
			bs.at = map[string]*breakdown{}
		}
		g = &breakdown{name: name}
		bs.at[name] = g
		bs.list = append(bs.list, g)
	}
	return g
}

// breakdownTable is "" for fewer than two groups, else header and the groups by ascending mean
// score, then name, at most breakdownMax of them.
func breakdownTable(groups []*breakdown, header, what string, row func(*breakdown) string) string {
	if len(groups) < 2 {
		return ""
	}
	var b strings.Builder
	b.WriteString(header)
	slices.SortStableFunc(groups, func(x, y *breakdown) int {
		return cmp.Or(cmp.Compare(x.mean(), y.mean()), cmp.Compare(x.name, y.name))
	})
	for _, g := range groups[:min(len(groups), breakdownMax)] {
		b.WriteString(row(g))
	}
	b.WriteString("\n")
	if n := len(groups) - breakdownMax; n > 0 {
		fmt.Fprintf(&b, "… and %s more %s.\n\n", thousands(n), what)
	}
	return b.String()
}

// datasetTable shows cases, pass rate and mean score per dataset when there is more than one.
func datasetTable(recs []*Case) string {
	var groups breakdowns
	for _, c := range recs {
		g := groups.get(c.Dataset)
		g.cases++
		g.sum.Add(caseScore(c))
		switch c.Verdict {
		case results.VerdictPass:
			g.passed++
		case results.VerdictError:
			g.errors++
		}
	}
	return breakdownTable(groups.list, "| Dataset | Cases | Pass rate | Errored | Mean score |\n|---|--:|--:|--:|--:|\n", "datasets", func(g *breakdown) string {
		return fmt.Sprintf("| %s | %s | %s | %s | %.3f |\n", mdInline(truncate(cmp.Or(g.name, "(none)"), 80)),
			thousands(g.cases), passRate(g.passed, g.cases), thousands(g.errors), g.mean())
	})
}

// evaluatorsOpen is how many evaluators the evaluator table shows unfolded.
const evaluatorsOpen = 5

// evaluatorTable shows each top-level evaluator's mean score when cases use more than one.
func evaluatorTable(recs []*Case) string {
	var bs breakdowns
	for _, c := range recs {
		for _, e := range c.Evaluators {
			g := bs.get(e.Name)
			g.cases++
			g.sum.Add(clampScore(e.Score))
			if e.Errored {
				g.errors++
			}
		}
	}
	groups := bs.list
	table := breakdownTable(groups, "| Evaluator | Cases | Errored | Mean score |\n|---|--:|--:|--:|\n", "evaluators", func(g *breakdown) string {
		return fmt.Sprintf("| %s | %s | %s | %.3f |\n", mdInline(truncate(g.name, 80)), thousands(g.cases), thousands(g.errors), g.mean())
	})
	if len(groups) <= evaluatorsOpen {
		return table
	}
	// Many evaluators make a tall table: it folds, naming the weakest (sorted first).
	low := groups[0]
	return fmt.Sprintf("<details>\n<summary>Mean score of each of %d evaluators (lowest: %s %.3f)</summary>\n\n%s</details>\n\n",
		len(groups), mdInline(truncate(low.name, 80)), low.mean(), table)
}

// chartMin is the fewest cases worth a chart; the headline counts fewer at a glance.
const chartMin = 10

// scoreChart draws the five-bin score histogram.
func scoreChart(s ScoreStats) string {
	if s.Count < chartMin {
		return ""
	}
	// A round top keeps the axis ticks whole numbers.
	top := 10
	for top < slices.Max(s.Histogram[:]) {
		top *= 2
		if top%25 != 0 && top > 25 {
			top = (top + 24) / 25 * 25
		}
	}
	title := fmt.Sprintf("Score distribution (%s %s)", thousands(s.Count), textfmt.Plural(s.Count, "case", "cases"))
	return barChart(600, title, "score", BinLabels[:], s.Histogram[:], top)
}

// barChart draws counts as a Mermaid bar chart, which GitHub renders as a picture (and shows
// as its short source where Mermaid is off). Only numbers and fixed labels go into it.
func barChart(width int, title, axis string, labels []string, counts []int, top int) string {
	ls, cs := make([]string, len(labels)), make([]string, len(counts))
	for i := range labels {
		ls[i], cs[i] = `"`+labels[i]+`"`, strconv.Itoa(counts[i])
	}
	return fmt.Sprintf("```mermaid\n%%%%{init: {\"xyChart\": {\"width\": %d, \"height\": 240, \"showDataLabel\": true}}}%%%%\n"+
		"xychart-beta\n    title \"%s\"\n    x-axis \"%s\" [%s]\n    y-axis \"cases\" 0 --> %d\n    bar [%s]\n```\n\n",
		width, title, axis, strings.Join(ls, ", "), top, strings.Join(cs, ", "))
}

func settingsLine(run *Run, recs []*Case) string {
	g := run.Gate
	var parts []string
	if sh := run.Shard; sh != nil {
		parts = append(parts, fmt.Sprintf("shard %d of %d", sh.Index, sh.Count))
	}
	parts = append(parts, "case threshold "+run.Counts.CaseThresholds(g.CaseThreshold, formatFloat))
	if g.MinScore != nil {
		parts = append(parts, "min-score "+formatFloat(*g.MinScore))
	}
	parts = append(parts, fmt.Sprintf("max-failures %d", g.MaxFailures), fmt.Sprintf("max-errors %d", g.MaxErrors))
	parts = append(parts, baselineSettings(run)...)
	if len(run.Targets) > 0 {
		var ts []string
		for _, t := range run.Targets[:min(len(run.Targets), 20)] {
			ts = append(ts, mdInline(t))
		}
		parts = append(parts, textfmt.Plural(len(ts), "target ", "targets ")+strings.Join(ts, ", "))
	}
	var in, out int64
	var dollars float64
	var haveTokens, haveCost bool
	for _, r := range recs {
		if t := r.Tokens; t != nil {
			in, out, haveTokens = in+t.Input, out+t.Output, true
		}
		if r.CostUSD != nil {
			dollars, haveCost = dollars+*r.CostUSD, true
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
	if s := cacheLine(run.Cache); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
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

// htmlReportLine points to report.html in the run's results artifact, on GitHub only. The
// report cannot see whether a later step uploads the results folder, so the line says where
// the file is when it does (the README's workflow uploads it on every run).
func htmlReportLine(l Links) string {
	u := safeURL(l.Artifacts)
	if u == "" || l.Artifact == "" {
		return ""
	}
	return fmt.Sprintf("📄 **[Browse every case in report.html](%s)**: conversations, grader reasoning, trials and history, "+
		"in this run's **%s** artifact (when the workflow uploads results-dir)\n\n", u, mdInline(truncate(l.Artifact, 100)))
}
