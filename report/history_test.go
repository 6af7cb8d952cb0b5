package report

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/history"
	"github.com/agentv/action/results"
)

// historyOf builds four earlier runs of the fixture's cases, oldest first: refund-policy
// fails since the third, timeout-case errs in all of them, hostile|case passed once, and a
// dataset with a hostile name comes and goes.
func historyOf(t testing.TB) *history.History {
	t.Helper()
	h := history.New()
	type c struct {
		dataset, id, target string
		score               float64
		st                  history.Status
	}
	runs := [][]c{
		{{"smoke", "refund-policy", "default", 0.9, history.Pass}, {"smoke", "timeout-case", "default", 0, history.Error},
			{"smoke", "greeting", "default", 1, history.Pass}, {"tools", "hostile|case @org/team", "agent", 0.2, history.Fail},
			{"`x\"]; %%{<script>", "odd", "default", 0.5, history.Fail}},
		{{"smoke", "refund-policy", "default", 0.8, history.Pass}, {"smoke", "timeout-case", "default", 0, history.Error},
			{"smoke", "greeting", "default", 1, history.Pass}, {"tools", "hostile|case @org/team", "agent", 0.9, history.Pass}},
		{{"smoke", "refund-policy", "default", 0.3, history.Fail}, {"smoke", "timeout-case", "default", 0, history.Error},
			{"smoke", "greeting", "default", 0.9, history.Pass}, {"tools", "hostile|case @org/team", "agent", 0.1, history.Fail},
			{"tools", "greeting", "agent", 1, history.Pass}},
		{{"smoke", "refund-policy", "default", 0.4, history.Fail}, {"smoke", "timeout-case", "default", 0, history.Error},
			{"smoke", "greeting", "default", 0.95, history.Pass}, {"tools", "greeting", "agent", 1, history.Pass},
			{"smoke", "judge-crash", "default", 0.9, history.Pass}},
	}
	for i, cases := range runs {
		h.Begin(history.Run{Label: fmt.Sprintf("#%d", 38+i), URL: fmt.Sprintf("https://github.com/agentv/demo/actions/runs/%d", 1000+i)})
		for _, x := range cases {
			h.Add(history.Key{Dataset: x.dataset, ID: x.id, Target: x.target}, x.score, x.st)
		}
	}
	return h
}

func historyRun(t testing.TB) *Run {
	run := fixtureRun(t)
	run.Links.Artifacts = run.Links.RunURL + "#artifacts"
	run.Links.Artifact = "agentv-results"
	run.SetHistory(historyOf(t), history.Run{Label: "this run", URL: run.Links.RunURL})
	return run
}

func TestHistoryGolden(t *testing.T) {
	t.Parallel()
	summary := Summary(historyRun(t))
	comment := Comment(historyRun(t), testMarker)
	checkGolden(t, "history-summary.md", summary)
	checkGolden(t, "history-comment.md", comment)
	for _, want := range []string{
		"xychart-beta",
		`x-axis "run" ["#38", "#39", "#40", "#41", "this run"]`,
		"<sub>🔁 failing since [#\u200d40](https://github.com/agentv/demo/actions/runs/1002) (3 runs)</sub>",
		"timeout-case](https://github.com/agentv/demo/blob/0123456789abcdef0123456789abcdef01234567/evals/smoke.yaml#L", // then: in all runs
		"<sub>🔁 failing in all 5 runs, since [#\u200d38](https://github.com/agentv/demo/actions/runs/1000) or earlier</sub>",
		"judge-crash](https://github.com/agentv/demo/blob/0123456789abcdef0123456789abcdef01234567/evals/smoke.yaml#L",
		"<sub>🆕 newly failing</sub>",
		"[Browse every case in report.html](https://github.com/agentv/demo/actions/runs/42#artifacts)",
	} {
		if !strings.Contains(summary, want) || !strings.Contains(comment, want) {
			t.Errorf("summary or comment lacks %q", want)
		}
	}
	// The hostile dataset left before this run: it is not charted, and nothing of it leaks.
	if strings.Contains(summary, "<script>") {
		t.Error("a dataset name reached the summary unescaped")
	}
	checkCommonMark(t, summary)
	checkCommonMark(t, comment)

	// The HTML report's points: each case over the five runs, this run last.
	pts := HistoryPoints(historyRun(t))
	got := pts[history.Key{Dataset: "smoke", ID: "refund-policy", Target: "default"}]
	want := []history.Point{
		{Run: "#38", URL: "https://github.com/agentv/demo/actions/runs/1000", Score: 0.9, Status: "pass"},
		{Run: "#39", URL: "https://github.com/agentv/demo/actions/runs/1001", Score: 0.8, Status: "pass"},
		{Run: "#40", URL: "https://github.com/agentv/demo/actions/runs/1002", Score: 0.3, Status: "fail"},
		{Run: "#41", URL: "https://github.com/agentv/demo/actions/runs/1003", Score: 0.4, Status: "fail"},
		{Run: "this run", URL: "https://github.com/agentv/demo/actions/runs/42", Score: 0.4, Status: "fail"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("points of refund-policy:\n got %v\nwant %v", got, want)
	}
	if HistoryPoints(fixtureRun(t)) != nil {
		t.Error("points without history")
	}
}

// A history is cut before the failures: over budgets from the full summary down, no
// summary keeps the trend with a failure row left out, and some keep every failure without it.
func TestHistoryCutBeforeFailures(t *testing.T) {
	t.Parallel()
	full := Summary(historyRun(t))
	if !strings.Contains(full, "xychart-beta\n    title \"Pass rate") {
		t.Fatal("the full summary lacks the trend")
	}
	cutFirst := false
	for budget := len(full); budget > 2000; budget -= 97 {
		got := SummaryWithin(historyRun(t), budget)
		if len(got) > budget {
			t.Fatalf("budget %d: %d bytes", budget, len(got))
		}
		trend := strings.Contains(got, "xychart-beta\n    title \"Pass rate")
		failures := strings.Contains(got, "Failed and errored cases (4)")
		if trend && !failures {
			t.Fatalf("budget %d: failures were cut while the trend is kept", budget)
		}
		if !trend && failures {
			cutFirst = true
			if !strings.Contains(got, "the trend over earlier runs omitted") {
				t.Fatalf("budget %d: the notice does not say the trend was left out", budget)
			}
		}
	}
	if !cutFirst {
		t.Error("no budget kept every failure without the trend")
	}
}

func TestMermaidText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"#41", "#41"},
		{"2026-01-05", "2026-01-05"},
		{"a\"b", "a_b"},
		{"x]; y%%{init}", "x__ y___init_"},
		{"#quot;", "#quot_"},
		{"```", "___"},
		{"line\nbreak", "line break"},
		{"αβγ run", "αβγ run"},
		{strings.Repeat("z", 40), strings.Repeat("z", 16)},
	} {
		if got := mermaidText(tc.in, 16); got != tc.want {
			t.Errorf("mermaidText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFilledSeriesAndSparkline(t *testing.T) {
	t.Parallel()
	nan := func() float64 { var z float64; return z / z }()
	got, filled := filledSeries([]float64{nan, 0.5, nan, 1})
	if !filled || fmt.Sprint(got) != "[0.5 0.5 0.5 1]" {
		t.Errorf("filledSeries = %v, %v", got, filled)
	}
	if s := sparkline([]float64{0, 0.5, nan, 1}); s != "▁▅·█" {
		t.Errorf("sparkline = %q", s)
	}
}

// checkCommonMark renders md with cmark-gfm, as GitHub's Markdown is, and checks the HTML is
// well-formed: the mermaid block stays one code block, every <details> closes, no raw tag
// from user text survives.
func checkCommonMark(t *testing.T, md string) {
	t.Helper()
	bin, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Log("cmark-gfm is not installed: the Markdown is not rendered")
		return
	}
	cmd := exec.Command(bin, "-e", "table", "-e", "strikethrough", "-e", "autolink")
	cmd.Stdin = strings.NewReader(md)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	html := string(out)
	if n, m := strings.Count(md, "```mermaid"), strings.Count(html, `<pre><code class="language-mermaid">`); n != m {
		t.Errorf("%d mermaid blocks in the Markdown, %d rendered as code blocks", n, m)
	}
	for _, tag := range []string{"details", "summary", "table", "sub", "pre", "blockquote"} {
		open := len(regexp.MustCompile(`<`+tag+`[ >]`).FindAllString(html, -1))
		if closed := strings.Count(html, "</"+tag+">"); open != closed {
			t.Errorf("<%s>: %d opened, %d closed", tag, open, closed)
		}
	}
	if strings.Contains(html, "<script") || strings.Contains(html, "<img") {
		t.Error("the rendered HTML holds a raw tag from user text")
	}
	// The chart block is code: no line of it was turned into anything else.
	if i := strings.Index(html, `<pre><code class="language-mermaid">`); i >= 0 {
		block := html[i : strings.Index(html[i:], "</code></pre>")+i]
		if !strings.Contains(block, "xychart-beta") {
			t.Errorf("mermaid block without its chart: %s", block)
		}
	}
}

// More datasets than trendLines: the ones with the lowest pass rate now are drawn, one colour
// each, and the note says how many there are.
func TestTrendCapsDatasets(t *testing.T) {
	t.Parallel()
	h := history.New()
	var recs []*results.Record
	for r := range 2 {
		h.Begin(history.Run{Label: fmt.Sprintf("#%d", r+1)})
		for d := range 7 {
			h.Add(history.Key{Dataset: fmt.Sprintf("d%d", d), ID: "x"}, 1, history.Pass)
		}
	}
	for d := range 7 {
		v, score := results.VerdictPass, 1.0
		if d%2 == 1 { // d1, d3, d5 fail now
			v, score = results.VerdictFail, 0.1
		}
		recs = append(recs, &results.Record{EvalID: "x", Dataset: fmt.Sprintf("d%d", d), Score: score, Verdict: v})
	}
	counts := tally(recs)
	run := &Run{Records: recs, Counts: counts, Gate: gate.Defaults(), Decision: gate.Decide(counts, gate.Defaults())}
	run.SetHistory(h, history.Run{Label: "this run"})
	got := trendSection(run)
	if n := strings.Count(got, "    line ["); n != trendLines {
		t.Errorf("%d lines, want %d:\n%s", n, trendLines, got)
	}
	if !strings.Contains(got, `"plotColorPalette": "`+strings.Join(trendPalette, ", ")+`"`) {
		t.Errorf("palette:\n%s", got)
	}
	for _, want := range []string{"| 🟦 | d1 |", "| 🟧 | d3 |", "| 🟩 | d5 |", "| 🟥 | d0 |", "| 🟪 | d2 |",
		"the 5 datasets with the lowest pass rate now, of 7"} {
		if !strings.Contains(got, want) {
			t.Errorf("trend lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| d4 |") || strings.Contains(got, "| d6 |") {
		t.Errorf("more datasets than lines are listed:\n%s", got)
	}
}
