package browser

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/results"
)

// count is how many records of run match.
func count(run *Run, match func(*results.Record) bool) int {
	n := 0
	for _, r := range run.Records {
		if match(r) {
			n++
		}
	}
	return n
}

func shownOf(n, total int) string {
	if n == total {
		return fmt.Sprintf("%d cases", total)
	}
	return fmt.Sprintf("%d of %d cases", n, total)
}

// TestReportFiltersSortsAndOpens drives a 120-case page as a reader would.
func TestReportFiltersSortsAndOpens(t *testing.T) {
	t.Parallel()
	run := Generate(120, 1, false)
	p := open(t, writePage(t, run))
	defer p.clean()
	total := len(run.Records)

	head := p.text("#head")
	for _, want := range []string{string(run.Report.Decision.Outcome), "120 cases", "Against the baseline", "regressed", "workflow run"} {
		if !strings.Contains(head, want) {
			t.Errorf("headline lacks %q:\n%s", want, head)
		}
	}
	if got := p.shown(); got != shownOf(total, total) {
		t.Errorf("shown = %q, want %q", got, shownOf(total, total))
	}
	p.screenshot("report-overview.png")

	// Status filter.
	failed := count(run, func(r *results.Record) bool { return r.Error == "" && r.Verdict == results.VerdictFail })
	p.setValue("#f-status", "fail")
	if got := p.shown(); got != shownOf(failed, total) {
		t.Errorf("status fail: shown = %q, want %q", got, shownOf(failed, total))
	}
	for _, st := range eval[[]string](p, `[...document.querySelectorAll("#spacer .row .st")].map(e=>e.textContent)`) {
		if st != "fail" {
			t.Errorf("status fail shows a %q row", st)
		}
	}
	// And dataset.
	both := count(run, func(r *results.Record) bool {
		return r.Error == "" && r.Verdict == results.VerdictFail && r.Dataset == "search"
	})
	p.setValue("#f-dataset", "search")
	if got := p.shown(); got != shownOf(both, total) {
		t.Errorf("fail + search: shown = %q, want %q", got, shownOf(both, total))
	}
	p.screenshot("report-filtered.png")
	p.setValue("#f-status", "")
	p.setValue("#f-dataset", "")

	// Target, grader, flaky and regressed.
	for _, c := range []struct {
		sel, value string
		match      func(*results.Record) bool
	}{
		{"#f-target", "claude-sonnet", func(r *results.Record) bool { return r.Target == "claude-sonnet" }},
		{"#f-grader", "code-grader", func(r *results.Record) bool {
			return slices.ContainsFunc(r.EvaluatorResults, func(e results.EvaluatorResult) bool { return e.Type == "code-grader" })
		}},
	} {
		p.setValue(c.sel, c.value)
		if got, want := p.shown(), shownOf(count(run, c.match), total); got != want {
			t.Errorf("%s %s: shown = %q, want %q", c.sel, c.value, got, want)
		}
		p.setValue(c.sel, "")
	}
	flaky := count(run, func(r *results.Record) bool { return r.Flaky })
	if flaky == 0 {
		t.Fatal("the generated run has no flaky case")
	}
	p.check("#f-flaky", true)
	if got := p.shown(); got != shownOf(flaky, total) {
		t.Errorf("flaky: shown = %q, want %q", got, shownOf(flaky, total))
	}
	p.check("#f-flaky", false)
	regressed := run.Report.Baseline.Count(compare.Regressed)
	if regressed == 0 {
		t.Fatal("the generated run has no regression")
	}
	p.check("#f-regressed", true)
	if got := p.shown(); got != shownOf(regressed, total) {
		t.Errorf("regressed: shown = %q, want %q", got, shownOf(regressed, total))
	}
	p.check("#f-regressed", false)

	// Search.
	p.search("CASE-00042")
	if got := p.rows(); !slices.Equal(got, []string{"case-00042"}) {
		t.Errorf("search case-00042: rows %q", got)
	}
	p.search("")

	// Sort by score, both ways, and by cost: the first row is the extreme.
	byScore := slices.Clone(run.Records)
	slices.SortStableFunc(byScore, func(a, b *results.Record) int { return cmpFloat(a.Score, b.Score) })
	p.setValue("#sort", "score")
	if got := p.rows(); len(got) == 0 || got[0] != byScore[0].EvalID {
		t.Errorf("score ↑: first row %q, want %q", first(got), byScore[0].EvalID)
	}
	p.setValue("#sort", "-score")
	top := eval[string](p, `document.querySelector("#spacer .row .num").textContent`)
	if want := fmt.Sprintf("%.3f", slices.MaxFunc(run.Records, func(a, b *results.Record) int { return cmpFloat(a.Score, b.Score) }).Score); top != want {
		t.Errorf("score ↓: first score %q, want %q", top, want)
	}
	p.setValue("#sort", "delta")
	worst := run.Report.Baseline.Cases[0] // regressions first, largest fall first
	if got := p.rows(); first(got) != worst.ID {
		t.Errorf("delta ↑: first row %q, want the largest fall %q (%+.3f)", first(got), worst.ID, worst.Delta)
	}
	p.setValue("#sort", "-cost")
	byCost := slices.MaxFunc(run.Records, func(a, b *results.Record) int { return cmpFloat(*a.TraceSummary.CostUSD, *b.TraceSummary.CostUSD) })
	if got := p.rows(); first(got) != byCost.EvalID {
		t.Errorf("cost ↓: first row %q, want %q", first(got), byCost.EvalID)
	}
	p.setValue("#sort", "")

	// A conversation case opens to its turns, graders and cost.
	conv := run.Records[6]
	if len(conv.Turns) == 0 {
		t.Fatal("case 6 is not a conversation")
	}
	text := p.openCase(conv.EvalID)
	for _, want := range []string{"Conversation (3 turns)", conv.Turns[1].Input, conv.Turns[2].Answer, "Graders",
		conv.EvaluatorResults[0].Reasoning, fmt.Sprintf("%.3f", conv.Score), "tokens"} {
		if !strings.Contains(text, want) {
			t.Errorf("opened conversation case lacks %q:\n%s", want, text)
		}
	}
	p.screenshot("report-conversation.png")

	// A regressed case with history: its chart has a point per past run and this run.
	var reg *results.Record
	for _, x := range run.Report.Baseline.Of(compare.Regressed) {
		for _, r := range run.Records {
			if r.EvalID == x.ID && len(run.History[key(r)]) > 0 {
				reg = r
			}
		}
	}
	if reg == nil {
		t.Fatal("no regressed case with history in the generated run")
	}
	text = p.openCase(reg.EvalID)
	for _, want := range []string{"Score over runs", "run #100", "regressed", "baseline"} {
		if !strings.Contains(text, want) {
			t.Errorf("opened regressed case lacks %q:\n%s", want, text)
		}
	}
	if n := eval[int](p, `document.querySelectorAll("#detail svg.hist circle").length`); n != len(run.History[key(reg)])+1 {
		t.Errorf("history chart has %d points, want %d", n, len(run.History[key(reg)])+1)
	}
	hrefs := eval[[]string](p, `[...document.querySelectorAll("#detail a")].map(a=>a.href)`)
	if len(hrefs) != len(run.History[key(reg)]) {
		t.Errorf("history links %q, want one a past run", hrefs)
	}
	p.screenshot("report-regressed-history.png")

	// A trials case lists its trials.
	tri := run.Records[4]
	text = p.openCase(tri.EvalID)
	for _, want := range []string{"Trials", "Trial 1", "Trial 3", tri.Trials[2].CandidateAnswer, fmt.Sprintf("%d of 3 passed", tri.TrialsPassed())} {
		if !strings.Contains(text, want) {
			t.Errorf("opened trials case lacks %q:\n%s", want, text)
		}
	}
	eval[bool](p, `(()=>{document.querySelector("#detail .close").click(); return true})()`)
	if !eval[bool](p, `document.querySelector("#detail").hidden`) {
		t.Error("close did not close the case")
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
