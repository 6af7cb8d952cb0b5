package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentv/action/history"
	"github.com/agentv/action/results"
)

// SetHistory makes h, which holds earlier runs oldest first, the run's history: the run's
// own cases become its newest run, labelled by current. Call it once, before rendering.
func (run *Run) SetHistory(h *history.History, current history.Run) {
	if h == nil {
		return
	}
	h.Begin(current)
	for _, c := range run.sortedCases() {
		h.Add(CaseKey(c), caseScore(c), statusOf(c.Verdict))
	}
	run.History = h
}

// HistoryPoints returns each case's score and status in every run of the run's history,
// oldest first and this run last, keyed by CaseKey: the HTML report's per-case chart. nil
// without history (or with this run alone).
func HistoryPoints(run *Run) map[history.Key][]history.Point {
	if run == nil || !run.hasHistory() {
		return nil
	}
	return run.History.Points()
}

// CaseKey is the key a case has in a history (HistoryPoints).
func CaseKey(c *Case) history.Key {
	return history.Key{Dataset: c.Dataset, ID: c.EvalID, Target: c.Target}
}

func statusOf(v results.Verdict) history.Status {
	switch v {
	case results.VerdictPass:
		return history.Pass
	case results.VerdictFail:
		return history.Fail
	}
	return history.Error
}

// trendLines is how many datasets the trend chart draws: Mermaid's xychart has no legend,
// so each line is named below the chart by its colour, and more than five colours no
// longer tell lines apart. The datasets with the lowest pass rate now are drawn.
const trendLines = 5

// trendPalette colours the lines, in order; trendMarks are the legend's squares for them.
var (
	trendPalette = []string{"#1f6feb", "#f08c00", "#2b9a3e", "#d6336c", "#7048e8"}
	trendMarks   = []string{"🟦", "🟧", "🟩", "🟥", "🟪"}
)

// hasHistory reports whether the run has earlier runs to show.
func (run *Run) hasHistory() bool { return run.History != nil && run.History.Len() >= 2 }

// trendSection is the per-dataset pass rate over the history's runs: a Mermaid line chart,
// then a legend table with each drawn dataset's pass rates and mean score. "" without history.
func trendSection(run *Run) string {
	if !run.hasHistory() {
		return ""
	}
	h := run.History
	runs := h.Runs()
	last := len(runs) - 1
	var trends []history.DatasetTrend
	for _, t := range h.Trend() {
		if t.Cases[last] > 0 { // a dataset this run no longer has is no trend of it
			trends = append(trends, t)
		}
	}
	if len(trends) == 0 {
		return ""
	}
	all := len(trends)
	slices.SortStableFunc(trends, func(a, b history.DatasetTrend) int {
		return cmp.Or(cmp.Compare(a.PassRate[last], b.PassRate[last]), cmp.Compare(a.Mean[last], b.Mean[last]), cmp.Compare(a.Dataset, b.Dataset))
	})
	trends = trends[:min(len(trends), trendLines)]

	var b strings.Builder
	fmt.Fprintf(&b, "### 📈 Trend over the last %d runs\n\n", len(runs))
	labels := make([]string, len(runs))
	for i, r := range runs {
		labels[i] = `"` + mermaidText(cmp.Or(r.Label, strconv.Itoa(i+1)), 16) + `"`
	}
	palette := strings.Join(trendPalette[:len(trends)], ", ")
	fmt.Fprintf(&b, "```mermaid\n%%%%{init: {\"xyChart\": {\"width\": 700, \"height\": 260}, \"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"%s\"}}}}%%%%\n", palette)
	fmt.Fprintf(&b, "xychart-beta\n    title \"Pass rate by run (%%)\"\n    x-axis \"run\" [%s]\n    y-axis \"pass rate %%\" 0 --> 100\n", strings.Join(labels, ", "))
	gaps := false
	for _, t := range trends {
		vals, filled := filledSeries(t.PassRate)
		gaps = gaps || filled
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = strconv.FormatFloat(math.Round(v*1000)/10, 'f', -1, 64)
		}
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(cells, ", "))
	}
	b.WriteString("```\n\n")
	first := runs[0]
	fmt.Fprintf(&b, "| Line | Dataset | Pass rate, %s → this run | Now | Mean score now |\n|---|---|---|--:|--:|\n", runRef(first))
	for i, t := range trends {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.3f |\n", trendMarks[i], mdInline(truncate(cmp.Or(t.Dataset, "(none)"), 80)),
			sparkline(t.PassRate), passRate(int(math.Round(t.PassRate[last]*float64(t.Cases[last]))), t.Cases[last]), t.Mean[last])
	}
	b.WriteString("\n")
	var notes []string
	if all > len(trends) {
		notes = append(notes, fmt.Sprintf("the %d datasets with the lowest pass rate now, of %d", len(trends), all))
	}
	if gaps {
		notes = append(notes, "a run without a dataset's cases repeats its nearest run's value in the chart (· in the table)")
	}
	if len(notes) > 0 {
		b.WriteString("<sub>" + strings.Join(notes, "; ") + "</sub>\n\n")
	}
	return b.String()
}

// filledSeries replaces the NaN of runs without cases by the nearest earlier value (else the
// nearest later one): a line chart has no gaps. filled reports whether any was replaced.
func filledSeries(vals []float64) (out []float64, filled bool) {
	out = slices.Clone(vals)
	known := slices.IndexFunc(out, func(v float64) bool { return !math.IsNaN(v) })
	if known < 0 {
		return make([]float64, len(out)), true
	}
	for i := range out {
		if math.IsNaN(out[i]) {
			filled = true
			if i < known {
				out[i] = out[known]
			} else {
				out[i] = out[i-1]
			}
		}
	}
	return out, filled
}

// sparkline draws rates in [0, 1] as block characters, · where a run had no cases.
func sparkline(rates []float64) string {
	const blocks = "▁▂▃▄▅▆▇█"
	bs := []rune(blocks)
	var b strings.Builder
	for _, r := range rates {
		if math.IsNaN(r) {
			b.WriteRune('·')
			continue
		}
		b.WriteRune(bs[int(math.Round(min(max(r, 0), 1)*float64(len(bs)-1)))])
	}
	return b.String()
}

// mermaidText makes user text (a run's folder name) safe in a quoted Mermaid label: only
// letters, digits, spaces and a few marks are kept, so no quote ends the string, no `#…;`
// entity, %% directive or backtick fence is formed, and the result is at most n runes.
func mermaidText(s string, n int) string {
	var out []rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" #-_.:/+()", r):
			out = append(out, r)
		case unicode.IsSpace(r):
			out = append(out, ' ')
		default:
			out = append(out, '_')
		}
		if len(out) == n {
			break
		}
	}
	return strings.TrimSpace(string(out))
}

// runRef names a run of the history in Markdown, linked to its page when it has one.
func runRef(r history.Run) string {
	return mdLink(truncate(cmp.Or(r.Label, "?"), 40), safeURL(r.URL))
}

// sinceMark says since which run of the history a failing case fails; "" without history.
// short is for the cases listed in a grouped row.
func (v *view) sinceMark(c *Case, short bool) string {
	run := v.run
	if !run.hasHistory() {
		return ""
	}
	h := run.History
	since, ok := h.FailingSince(CaseKey(c))
	if !ok {
		return ""
	}
	runs := h.Runs()
	switch {
	case short && since == len(runs)-1:
		return " <sub>🆕</sub>"
	case short:
		return " <sub>since " + runRef(runs[since]) + "</sub>"
	case since == len(runs)-1:
		return " <sub>🆕 newly failing</sub>"
	case since == 0:
		return fmt.Sprintf(" <sub>🔁 failing in all %d runs, since %s or earlier</sub>", len(runs), runRef(runs[0]))
	}
	return fmt.Sprintf(" <sub>🔁 failing since %s (%d runs)</sub>", runRef(runs[since]), len(runs)-since)
}
