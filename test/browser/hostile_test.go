package browser

import (
	"strings"
	"testing"

	"github.com/agentv/action/internal/logtext"
)

// TestHostileTextStaysText opens a run whose ids, answers, reasoning, inputs, turns, errors and
// history carry markup and script: every one shows as the text it is, nothing runs, nothing loads
// (the page's listener fails the test on any request or console error, which also catches a
// script or style the policy had to block).
func TestHostileTextStaysText(t *testing.T) {
	t.Parallel()
	run := Generate(48, 7, true)
	p := open(t, writePage(t, run))
	defer p.clean()

	check := func(when string) {
		t.Helper()
		if got := eval[string](p, `String(window.pwned)`); got != "undefined" {
			t.Errorf("%s: a hostile script ran (window.pwned = %s)", when, got)
		}
		if title := eval[string](p, `document.title`); !strings.HasPrefix(title, "AgentV report") {
			t.Errorf("%s: the title changed to %q", when, title)
		}
		// Only the page's own three scripts and one style; no element model text could add.
		counts := eval[map[string]int](p, `(()=>{const n=s=>document.querySelectorAll(s).length; return {script:n("script"), style:n("style"), img:n("img"), iframe:n("iframe"), onattr:[...document.querySelectorAll("*")].filter(e=>[...e.attributes].some(a=>/^on/i.test(a.name))).length, svg:n("svg:not(.hist)"), badhref:[...document.querySelectorAll("a")].filter(a=>!/^https?:/.test(a.href)).length}})()`)
		want := map[string]int{"script": 3, "style": 1}
		for k, v := range counts {
			if v != want[k] {
				t.Errorf("%s: %d %s elements, want %d", when, v, k, want[k])
			}
		}
		if vis := eval[string](p, `getComputedStyle(document.body).display`); vis == "none" {
			t.Errorf("%s: a hostile style hid the page", when)
		}
	}
	check("opened")

	// Hostile ids show in the list as they are, and search finds them.
	p.search("<script>")
	rows := p.rows()
	if len(rows) == 0 {
		t.Fatal(`search "<script>" found no row`)
	}
	for _, id := range rows {
		if !strings.Contains(strings.ToLower(id), "<script>") {
			t.Errorf(`search "<script>" shows %q`, id)
		}
	}
	p.search("")

	// Open every case: each shows its hostile answer, error and reasoning as text.
	seen := map[string]bool{}
	for i, rec := range run.Records {
		if i%2 == 1 && len(rec.Turns) == 0 {
			continue // half of them is enough, conversations always
		}
		// The page shows texts as every report does: line breaks made LF (logtext.Block).
		text := p.openCase(logtext.Block(rec.EvalID))
		answer := strings.SplitN(rec.CandidateAnswer, "\n", 2)[0]
		if len(rec.Turns) > 0 {
			answer = rec.Turns[0].Answer
		}
		for _, want := range []string{answer, rec.EvaluatorResults[0].Reasoning} {
			if !strings.Contains(text, logtext.Block(want)) {
				t.Errorf("case %d does not show %q as text", i, want)
			}
			seen[want] = true
		}
		if len(run.History[key(rec)]) > 0 && i < 20 {
			if n := eval[int](p, `document.querySelectorAll("#detail svg.hist circle").length`); n == 0 {
				t.Errorf("case %d: no history chart", i)
			}
		}
	}
	for _, h := range Hostile {
		if !seen[h] {
			t.Errorf("no opened case showed %q", h)
		}
	}
	p.screenshot("report-hostile.png")
	check("after opening every case")
}
