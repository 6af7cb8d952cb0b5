package report

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/textfmt"
)

// A baseline (Run.Baseline) adds to the Markdown surfaces a headline line (the mean's change
// with its interval, counts of regressed, improved, new and removed cases) and, after the head,
// the regressions, then folded improvements, noisy, new and removed cases, the per-dataset
// changes and a chart of the per-case changes.

// changesLimit is how many rows each list of changed cases shows, per surface.
func changesLimit(lim limits) int {
	if lim.warnings >= summarySurface.lim.warnings {
		return 300
	}
	return 25
}

// baselineHeadline is the headline's line about the baseline, "" without one.
func baselineHeadline(run *Run) string {
	r := run.Baseline
	if r == nil {
		return ""
	}
	n := r.Compared()
	parts := []string{fmt.Sprintf("**Against the baseline** (%s)", mdInline(truncate(r.Source, 200)))}
	if n > 0 {
		parts[0] += fmt.Sprintf(": mean score %.3f → %.3f, Δ **%s** (95%% interval %s to %s) over %s %s in both runs",
			r.Before, r.After, signed(r.Mean.Estimate), signed(r.Mean.Lo), signed(r.Mean.Hi), thousands(n), textfmt.Plural(n, "case", "cases"))
	} else {
		parts[0] += ": no case in both runs"
	}
	parts = append(parts,
		fmt.Sprintf("🔻 %s regressed", thousands(r.Count(compare.Regressed))),
		fmt.Sprintf("🔺 %s improved", thousands(r.Count(compare.Improved))),
		fmt.Sprintf("🆕 %s new", thousands(r.Count(compare.New))),
		fmt.Sprintf("🗑️ %s removed", thousands(r.Count(compare.Removed))))
	if k := r.Count(compare.Noisy); k > 0 {
		parts = append(parts, fmt.Sprintf("〰️ %s within the noise", thousands(k)))
	}
	return strings.Join(parts, " · ") + "\n\n"
}

// baselineSettings are the settings line's regression thresholds, none without a baseline.
func baselineSettings(run *Run) []string {
	if run.Baseline == nil {
		return nil
	}
	g := run.Gate
	parts := []string{"regression margin " + formatFloat(run.Baseline.Margin)}
	if g.MaxRegressions != nil {
		parts = append(parts, fmt.Sprintf("max-regressions %d", *g.MaxRegressions))
	}
	if g.MaxMeanDrop != nil {
		parts = append(parts, "max-mean-drop "+formatFloat(*g.MaxMeanDrop))
	}
	return parts
}

// signed formats a change with its sign: +0.120, −0.050 (a true minus), and 0.000.
func signed(f float64) string {
	s := fmt.Sprintf("%+.3f", f)
	switch {
	case s == "+0.000" || s == "-0.000":
		return "0.000"
	case strings.HasPrefix(s, "-"):
		return "−" + s[1:]
	}
	return s
}

// baselineSection renders the comparison's tables, "" without a baseline.
func baselineSection(v *view) string {
	r := v.run.Baseline
	if r == nil {
		return ""
	}
	limit := changesLimit(v.lim)
	current := map[[3]string]*Case{}
	for _, c := range v.run.sortedCases() {
		current[[3]string{c.Dataset, c.EvalID, c.Target}] = c
	}
	caseCell := func(x *compare.Case) string {
		label := mdInline(truncate(x.Label, 120))
		if c := current[[3]string{x.Dataset, x.ID, x.Target}]; c != nil {
			label = mdLink(truncate(x.Label, 120), v.run.Links.sourceURL(c.File, int(c.Line)))
		}
		if x.Flaky() {
			label += " 🎲 flaky"
		}
		return label
	}
	var b strings.Builder
	if n := r.PassAtK; n > 0 {
		fmt.Fprintf(&b, "> ⚠️ %s compared %s ran `pass_at_k` trials, which stop at the first pass: a case that passed at once has one score, "+
			"too few for a fall to be significant. Compare runs whose trials use the `mean` strategy (`trials-strategy: mean`, `--trials-strategy mean`).\n\n",
			thousands(n), textfmt.Plural(n, "case", "cases"))
	}
	// Regressions show as a section with why each case failed; the other tables fold.
	table := func(title string, cases []*compare.Case, folded bool) {
		if len(cases) == 0 {
			return
		}
		head, col, tail := "### %s (%s)\n\n", "Why", "\n"
		if folded {
			head, col, tail = "<details>\n<summary>%s (%s)</summary>\n\n", "Test", "\n</details>\n\n"
		}
		fmt.Fprintf(&b, head+"| Case | Before → after | Δ | %s |\n|---|--:|--:|---|\n", title, shownOf(limit, len(cases)), col)
		for _, x := range cases[:min(limit, len(cases))] {
			why := TestNote(x)
			if c := current[[3]string{x.Dataset, x.ID, x.Target}]; !folded && c != nil && c.Why != "" {
				why = mdInline(elide(c.Why, min(v.lim.item, 200))) + " · " + why
			}
			fmt.Fprintf(&b, "| %s | %.3f → %.3f | %s | %s |\n", caseCell(x), x.Before.Score, x.After.Score, signed(x.Delta), why)
		}
		b.WriteString(tail)
	}
	table("🔻 Regressions", r.Of(compare.Regressed), false)
	table("🔺 Improvements", r.Of(compare.Improved), true)
	table(fmt.Sprintf("〰️ Moved by more than %s within the noise of their trials", strconv.FormatFloat(r.Margin, 'g', -1, 64)), r.Of(compare.Noisy), true)
	names := func(title string, cases []*compare.Case) {
		if len(cases) == 0 {
			return
		}
		var list []string
		for _, x := range cases[:min(limit, len(cases))] {
			list = append(list, caseCell(x))
		}
		if n := len(cases) - limit; n > 0 {
			list = append(list, fmt.Sprintf("and %s more", thousands(n)))
		}
		fmt.Fprintf(&b, "<details>\n<summary>%s (%s)</summary>\n\n%s\n\n</details>\n\n", title, thousands(len(cases)), strings.Join(list, ", "))
	}
	names("🆕 New cases", r.Of(compare.New))
	names("🗑️ Removed cases", r.Of(compare.Removed))
	if len(r.Datasets) > 0 {
		b.WriteString("| Dataset | Cases in both | Before → after | Δ | Regressed | Improved |\n|---|--:|--:|--:|--:|--:|\n")
		for _, d := range r.Datasets[:min(len(r.Datasets), breakdownMax)] {
			fmt.Fprintf(&b, "| %s | %s | %.3f → %.3f | %s | %s | %s |\n", mdInline(truncate(cmp.Or(d.Name, "(none)"), 80)),
				thousands(d.Compared), d.Before, d.After, signed(d.Delta()), thousands(d.Regressed), thousands(d.Improved))
		}
		b.WriteString("\n")
		if n := len(r.Datasets) - breakdownMax; n > 0 {
			fmt.Fprintf(&b, "… and %s more datasets.\n\n", thousands(n))
		}
	}
	b.WriteString(deltaChart(r))
	return b.String()
}

// shownOf counts a list that may be cut: "12", or "showing 25 of 40".
func shownOf(limit, n int) string {
	if n > limit {
		return fmt.Sprintf("showing %s of %s", thousands(limit), thousands(n))
	}
	return thousands(n)
}

// TestNote says what made a compared case regressed, improved or within the noise: its
// test's p-value against the level it had to reach, or that each run scored it once.
func TestNote(x *compare.Case) string {
	if x.Test == nil {
		if x.Trials() {
			return "within the margin"
		}
		return "one run each (no trials to test)"
	}
	rel := "≤"
	if x.Test.P > x.Level {
		rel = ">"
	}
	return fmt.Sprintf("p = %s %s %s (%d + %d trials)", formatP(x.Test.P), rel, formatP(x.Level), samples(x.Before), samples(x.After))
}

// samples counts the scores a side's test used: its trials, else its one score.
func samples(s *compare.Side) int {
	if s == nil {
		return 0
	}
	return max(1, len(s.Trials))
}

// formatP formats a p-value with three significant digits: 0.131, 0.00397, 2.5e-05.
func formatP(p float64) string {
	return strconv.FormatFloat(p, 'g', 3, 64)
}

// deltaBins are the per-case change chart's bins, lowest first; labels are fixed text.
var deltaBins = []struct {
	label  string
	lo, hi float64 // lo < Δ <= hi, except the first, which takes everything up to hi
}{
	{"-1 to -0.5", -2, -0.5},
	{"-0.5 to -0.2", -0.5, -0.2},
	{"-0.2 to -0.05", -0.2, -0.05},
	{"about 0", -0.05, 0.05 - 1e-12},
	{"0.05 to 0.2", 0.05 - 1e-12, 0.2},
	{"0.2 to 0.5", 0.2, 0.5},
	{"0.5 to 1", 0.5, 2},
}

// deltaChartMin is the fewest compared cases worth a chart.
const deltaChartMin = 5

// deltaChart draws how many cases moved by how much.
func deltaChart(r *compare.Result) string {
	n := r.Compared()
	if n < deltaChartMin {
		return ""
	}
	counts := make([]int, len(deltaBins))
	for _, x := range r.Cases {
		if x.Before == nil || x.After == nil {
			continue
		}
		for i, bin := range deltaBins {
			if x.Delta <= bin.hi || i == len(deltaBins)-1 {
				counts[i]++
				break
			}
		}
	}
	labels := make([]string, len(deltaBins))
	top := 10
	for i, bin := range deltaBins {
		labels[i] = bin.label
		for top < counts[i] {
			top *= 2
		}
	}
	title := fmt.Sprintf("Score change per case (%s %s in both runs)", thousands(n), textfmt.Plural(n, "case", "cases"))
	return barChart(700, title, "change", labels, counts, top)
}

// consoleBaseline writes the console's lines about the baseline: the mean's change, regressions.
func consoleBaseline(w io.Writer, run *Run) {
	r := run.Baseline
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nAgainst the baseline (%s):\n", logtext.Line(r.Source))
	if n := r.Compared(); n > 0 {
		fmt.Fprintf(w, "  Mean score %.3f -> %.3f, change %+.3f (95%% interval %+.3f to %+.3f) over %d %s in both runs\n",
			r.Before, r.After, r.Mean.Estimate, r.Mean.Lo, r.Mean.Hi, n, textfmt.Plural(n, "case", "cases"))
	}
	fmt.Fprintf(w, "  Regressed: %d   Improved: %d   New: %d   Removed: %d   Within the noise: %d\n",
		r.Count(compare.Regressed), r.Count(compare.Improved), r.Count(compare.New), r.Count(compare.Removed), r.Count(compare.Noisy))
	if n := r.PassAtK; n > 0 {
		fmt.Fprintf(w, "  Note: %d compared %s ran pass_at_k trials, which stop at the first pass: too few scores for a fall to be significant; compare runs with --trials-strategy mean\n",
			n, textfmt.Plural(n, "case", "cases"))
	}
	reg := r.Of(compare.Regressed)
	for _, x := range reg[:min(len(reg), 10)] {
		fmt.Fprintf(w, "  - %s: %.3f -> %.3f (%+.3f)\n", logtext.Line(truncate(x.Label, 120)), x.Before.Score, x.After.Score, x.Delta)
	}
	if len(reg) > 10 {
		fmt.Fprintf(w, "  … and %d more regressed cases\n", len(reg)-10)
	}
}
