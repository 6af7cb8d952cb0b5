package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
)

// Size budgets of the Markdown surfaces: GitHub refuses a comment over 65,536 characters and
// a step summary over 1 MiB (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands).
const (
	// CommentLimit is the PR comment budget in characters. GitHub rejects a body over 65,536
	// characters with 422 "Body is too long"; the margin absorbs counting differences.
	CommentLimit = 65_000
	// CommentByteLimit bounds the comment in bytes too: GitHub stores the body in a
	// 262,144-byte column (65,000 characters already fit; the check keeps it explicit).
	CommentByteLimit = 262_144 - 1
	// SummaryLimit is the job summary budget in bytes: over 1 MiB it is dropped whole.
	SummaryLimit = 1_000_000
)

// noticeSlack is reserved beyond the worst-case notice and section headers while planning;
// the final check makes the guarantee exact.
const noticeSlack = 200

// surface is one Markdown destination: its budget and how much model text a case may show.
type surface struct {
	maxRunes, maxBytes int    // 0: no limit of that kind
	limitText          string // named in the notice when something was left out
	lim                limits
}

var (
	commentSurface = surface{
		maxRunes: CommentLimit, maxBytes: CommentByteLimit,
		limitText: "GitHub's 65,536-character comment limit",
		lim:       limits{answer: 600, reasoning: 1500, item: 300, err: 1000, items: 8, warnings: 50},
	}
	summarySurface = surface{
		maxBytes:  SummaryLimit,
		limitText: "GitHub's 1 MiB job summary limit",
		lim:       limits{answer: 3000, reasoning: 6000, item: 500, err: 4000, items: 16, warnings: 500},
	}
)

// Summary renders the job summary (summary.md, $GITHUB_STEP_SUMMARY): headline, warnings,
// failures, then passing cases, with details per run.Details, within SummaryLimit bytes; what
// is dropped to fit (passing cases, then failure details and rows) is said in the body.
func Summary(run *Run) string { return renderSurface(run, "", summarySurface) }

// SummaryWithin renders Summary within maxBytes when that is less than SummaryLimit (an
// earlier run in the same step may have filled part of the file). The headline is never
// dropped, so the result exceeds a budget too small for it.
func SummaryWithin(run *Run, maxBytes int) string {
	s := summarySurface
	s.maxBytes = max(0, min(maxBytes, SummaryLimit))
	if s.maxBytes == 0 {
		s.maxBytes = 1 // 0 means no limit
	}
	return renderSurface(run, "", s)
}

// Comment renders the sticky PR comment: the summary's content within CommentLimit characters
// and CommentByteLimit bytes, starting with the caller's marker line, verbatim.
func Comment(run *Run, marker string) string { return renderSurface(run, marker, commentSurface) }

func renderSurface(run *Run, marker string, s surface) string {
	if run == nil {
		run = &Run{}
	}
	v := buildView(run, marker, s.lim)
	lay := plan(v, s)
	out := render(v, lay, s)
	for !s.fits(sizeOf(out)) && lay.shrink() {
		out = render(v, lay, s)
	}
	return out
}

// layout is the decision of what to show: how many of each kind of fragment, in order.
type layout struct {
	warnings, failRows, failDetails, passRows, passDetails int
	overview                                               int // 1: the overview shows
	trend                                                  int // 1: the history's trend shows
}

// shrink drops the lowest-priority fragments (about a tenth of the last non-empty kind, or
// all passing rows) and reports whether anything was left to drop.
func (l *layout) shrink() bool {
	if l.passDetails > 0 {
		l.passDetails -= max(1, l.passDetails/10)
		return true
	}
	if l.passRows > 0 { // passing rows go as a whole (see plan)
		l.passRows = 0
		return true
	}
	if l.trend > 0 { // history goes before failures do
		l.trend = 0
		return true
	}
	for _, n := range []*int{&l.failDetails, &l.failRows, &l.overview, &l.warnings} {
		if *n > 0 {
			*n -= max(1, *n/10)
			return true
		}
	}
	return false
}

type size struct{ runes, bytes int }

func sizeOf(s string) size { return size{utf8.RuneCountInString(s), len(s)} }

func (a size) plus(b size) size { return size{a.runes + b.runes, a.bytes + b.bytes} }

func (s surface) fits(z size) bool {
	return (s.maxRunes == 0 || z.runes <= s.maxRunes) && (s.maxBytes == 0 || z.bytes <= s.maxBytes)
}

// plan degrades in priority order — warnings, the overview, failed and errored rows, their
// details, passing rows (all or none), their details — taking fragments while they fit. Once a
// kind of case fragment is cut short, the kinds after it are left out, so the report reads all
// cases → failures only → headline only. Measuring stops at the budget, so a 100,000-case run
// costs no more than the budget.
func plan(v *view, s surface) layout {
	full := layout{
		warnings: min(len(v.warnings), s.lim.warnings),
		failRows: len(v.failRows), failDetails: min(len(v.failDetailed), maxFailText),
		passRows: len(v.pass), passDetails: len(v.passDetailed),
	}
	if v.overview != "" {
		full.overview = 1
	}
	if v.trend != "" {
		full.trend = 1
	}
	// Everything fits without a notice: the full report.
	if lay, cut := fill(v, s, full, sizeOf(v.head).plus(sizeOf(v.footer))); !cut {
		return lay
	}
	// Otherwise reserve the longest notice (everything omitted) and fill again.
	lay, _ := fill(v, s, full, sizeOf(render(v, layout{}, s)).plus(size{noticeSlack, noticeSlack}))
	return lay
}

// fill takes fragments in priority order starting from used, up to full. cut reports whether
// anything was left out.
func fill(v *view, s surface, full layout, used size) (lay layout, cut bool) {
	kinds := []struct {
		n        int
		item     func(i int) string
		overhead string
		taken    *int
		whole    bool // all or nothing
	}{
		{full.warnings, func(i int) string { return v.warnings[i] }, warningsHead(v) + "- … and 99999999 more\n\n", &lay.warnings, false},
		// The overview is small and says much: it goes before the rows, though shown after them.
		{full.overview, func(int) string { return v.overview }, "", &lay.overview, true},
		{full.failRows, func(i int) string { return v.failRow(v.failRows[i]) }, failHead(v, len(v.fail)) + "\n", &lay.failRows, false},
		{full.failDetails, func(i int) string { return v.detailsOf(v.failDetailed[i]) }, foldOpen(v.failDetailed, 1<<30) + foldClose, &lay.failDetails, false},
		// The history's trend comes after every failure, and before the passing cases.
		{full.trend, func(int) string { return v.trend }, "", &lay.trend, true},
		// A partial list of passing cases would be an arbitrary slice; they go as a whole.
		{full.passRows, func(i int) string { return v.row(v.pass[i]) }, passHead(v, len(v.pass)) + passTail, &lay.passRows, true},
		{full.passDetails, func(i int) string { return v.detailsOf(v.passDetailed[i]) }, foldOpen(v.passDetailed, 1<<30) + foldClose, &lay.passDetails, false},
	}
	for i, k := range kinds {
		before := used
		short := false
		// A whole kind that cannot fit even at its smallest is left out without rendering any.
		if k.whole && k.n > 0 && !s.fits(used.plus(size{k.n * minRowBytes / 4, k.n * minRowBytes})) {
			cut = true
			break
		}
		for j := range k.n {
			add := sizeOf(k.item(j))
			if j == 0 {
				add = add.plus(sizeOf(k.overhead))
			}
			if !s.fits(used.plus(add)) {
				short = true
				break
			}
			used = used.plus(add)
			*k.taken++
		}
		if short && k.whole {
			*k.taken, used = 0, before
		}
		cut = cut || short
		if short && i > 0 { // warnings being cut does not stop the cases from trying
			break
		}
	}
	return lay, cut
}

const passTail = "\n</details>\n\n"

func warningsHead(v *view) string {
	title := "Warnings"
	if v.problems > 0 {
		title = "Configuration problems and warnings"
	}
	return fmt.Sprintf("### ⚠️ %s (%s)\n\n", title, thousands(len(v.warnings)))
}

func failHead(v *view, shown int) string {
	n := len(v.fail)
	count := thousands(n)
	if shown < n {
		count = fmt.Sprintf("showing %s of %s", thousands(shown), thousands(n))
	}
	return fmt.Sprintf("### ❌ Failed and errored cases (%s)\n\n%s", count, v.failHead)
}

func passHead(v *view, shown int) string {
	n := len(v.pass)
	what := fmt.Sprintf("%s passing %s", thousands(n), textfmt.Plural(n, "case", "cases"))
	if shown < n {
		what = fmt.Sprintf("%s of %s passing cases", thousands(shown), thousands(n))
	}
	return fmt.Sprintf("### ✅ Passing cases\n\n<details>\n<summary>%s</summary>\n\n%s", what, v.passHead)
}

// foldMin is how many details blocks are folded into one: past it, a closed list of
// closed blocks is still a screen tall.
const foldMin = 10

// foldOpen opens the block that folds the details of cases, or is "" when there are few.
func foldOpen(cases []*Case, shown int) string {
	n := min(len(cases), shown)
	if n <= foldMin {
		return ""
	}
	what := "passing"
	if cases[0].Verdict != results.VerdictPass {
		what = "failed and errored"
	}
	return fmt.Sprintf("<details>\n<summary><b>Details of %s %s cases</b> (click a case to open it)</summary>\n\n", thousands(n), what)
}

const foldClose = "</details>\n\n"

// writeDetails writes the cases' details blocks, folded into one when there are many.
func writeDetails(b *strings.Builder, v *view, cases []*Case) {
	open := foldOpen(cases, len(cases))
	b.WriteString(open)
	for _, c := range cases {
		b.WriteString(v.detailsOf(c))
	}
	if open != "" {
		b.WriteString(foldClose)
	}
}

// render assembles the report for a layout. It decides nothing.
func render(v *view, lay layout, s surface) string {
	var b strings.Builder
	b.WriteString(v.head)
	b.WriteString(notice(v, lay, s))
	if lay.warnings > 0 {
		b.WriteString(warningsHead(v))
		for _, w := range v.warnings[:lay.warnings] {
			b.WriteString(w)
		}
		if n := len(v.warnings) - lay.warnings; n > 0 {
			fmt.Fprintf(&b, "- … and %s more\n", thousands(n))
		}
		b.WriteString("\n")
	}
	if lay.failRows > 0 {
		b.WriteString(failHead(v, casesIn(v.failRows[:lay.failRows])))
		for _, r := range v.failRows[:lay.failRows] {
			b.WriteString(v.failRow(r))
		}
		b.WriteString("\n")
		writeDetails(&b, v, v.failDetailed[:lay.failDetails])
	}
	// The trend and the overview follow the failures: a reviewer reads what failed first.
	if lay.trend > 0 {
		b.WriteString(v.trend)
	}
	if lay.overview > 0 {
		b.WriteString(v.overview)
	}
	if lay.passRows > 0 {
		b.WriteString(passHead(v, lay.passRows))
		for _, c := range v.pass[:lay.passRows] {
			b.WriteString(v.row(c))
		}
		b.WriteString(passTail)
	}
	writeDetails(&b, v, v.passDetailed[:lay.passDetails])
	b.WriteString(v.footer)
	return b.String()
}

// notice says, visibly, what the budget left out. Empty when nothing was.
func notice(v *view, lay layout, s surface) string {
	var parts []string
	omitted := func(shown, total int, what string) {
		switch {
		case shown >= total:
		case shown == 0:
			parts = append(parts, fmt.Sprintf("%s %s omitted", thousands(total), what))
		default:
			parts = append(parts, fmt.Sprintf("%s of %s %s omitted", thousands(total-shown), thousands(total), what))
		}
	}
	omitted(casesIn(v.failRows[:lay.failRows]), len(v.fail), "failed or errored cases")
	omitted(lay.passRows, len(v.pass), "passing cases")
	omitted(lay.failDetails+lay.passDetails, len(v.failDetailed)+len(v.passDetailed), "case details")
	omitted(lay.warnings, min(len(v.warnings), s.lim.warnings), "warnings")
	if v.overview != "" && lay.overview == 0 {
		parts = append(parts, "the score chart omitted")
	}
	if v.trend != "" && lay.trend == 0 {
		parts = append(parts, "the trend over earlier runs omitted")
	}
	if len(parts) == 0 {
		return ""
	}
	where := "Every case is in results.jsonl and junit.xml"
	if v.runURL != "" {
		where += " of the [workflow run](" + v.runURL + ")"
	}
	return fmt.Sprintf("> ✂️ **%s to fit %s.** %s.\n\n", strings.Join(parts, ", "), s.limitText, where)
}
