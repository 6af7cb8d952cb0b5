package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
)

// syntheticRun builds nFail failing and nPass passing cases; failing ones carry reasoning of
// reasonLen characters (multi-byte, to exercise the byte budget too).
func syntheticRun(nFail, nPass, reasonLen int, details DetailLevel) *Run {
	reasoning := strings.Repeat("é judge 🚀 says no. ", reasonLen/20+1)[:reasonLen]
	var recs []*results.Record
	for i := range nFail {
		recs = append(recs, &results.Record{
			EvalID: fmt.Sprintf("fail-%04d", i), Dataset: "big", File: "evals/big.yaml", Line: 10 + i*8,
			Score: 0.3, Verdict: results.VerdictFail, Misses: []string{fmt.Sprintf("misses point %d", i), "too long"},
			Reasoning: reasoning, CandidateAnswer: reasoning, DurationMS: 1200, Target: "default",
			EvaluatorResults: []results.EvaluatorResult{{Name: "rubric", Type: "llm_judge", Score: 0.3, Verdict: "fail",
				Misses: []string{"misses the point", "too long"}, Reasoning: reasoning}},
		})
	}
	for i := range nPass {
		recs = append(recs, &results.Record{
			EvalID: fmt.Sprintf("pass-%04d", i), Dataset: "big", File: "evals/big.yaml", Line: 100000 + i*8,
			Score: 0.9, Verdict: results.VerdictPass, Hits: []string{"fine"}, CandidateAnswer: "fine", DurationMS: 300,
			EvaluatorResults: []results.EvaluatorResult{{Name: "rubric", Type: "llm_judge", Score: 0.9, Verdict: "pass", Reasoning: "good"}},
		})
	}
	opts := gate.Defaults()
	counts := tally(recs)
	return &Run{Records: recs, Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts, Details: details,
		Links: Links{ServerURL: "https://github.com", Repo: "a/b", SHA: "abc", RunURL: "https://github.com/a/b/actions/runs/1"}}
}

func checkComment(t *testing.T, body string) {
	t.Helper()
	if n := utf8.RuneCountInString(body); n > CommentLimit {
		t.Errorf("comment has %d characters, over %d", n, CommentLimit)
	}
	if len(body) > CommentByteLimit {
		t.Errorf("comment has %d bytes, over %d", len(body), CommentByteLimit)
	}
	if !strings.HasPrefix(body, testMarker+"\n") {
		t.Errorf("comment does not start with the marker line: %.80q", body)
	}
	checkStructure(t, body)
}

// checkStructure checks that the Markdown's own markup is balanced and that each table keeps
// one column count, whatever the text inside.
func checkStructure(t *testing.T, md string) {
	t.Helper()
	for _, pair := range [][2]string{{"<details>", "</details>"}, {"<pre>", "</pre>"}, {"<summary>", "</summary>"}, {"<sub>", "</sub>"}} {
		if o, c := strings.Count(md, pair[0]), strings.Count(md, pair[1]); o != c {
			t.Errorf("%d %s but %d %s", o, pair[0], c, pair[1])
		}
	}
	if strings.Count(md, "```")%2 != 0 {
		t.Error("unbalanced code fences")
	}
	cols := -1
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = -1
			continue
		}
		n := strings.Count(line, "|")
		if cols == -1 {
			cols = n
		} else if n != cols {
			t.Errorf("line %d has %d pipes, its table header %d: %.200q", i+1, n, cols, line)
		}
	}
}

func TestCommentBudgetManyFailures(t *testing.T) {
	t.Parallel()
	run := syntheticRun(2000, 0, 4000, DetailsFailures)
	body := Comment(run, testMarker)
	checkComment(t, body)
	for _, want := range []string{
		"failed or errored cases omitted", "case details omitted", "to fit GitHub's 65,536-character comment limit",
		"[workflow run](https://github.com/a/b/actions/runs/1)", "**Outcome: fail**", "fail-0000",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	summary := Summary(run)
	if len(summary) > SummaryLimit {
		t.Errorf("summary has %d bytes, over %d", len(summary), SummaryLimit)
	}
	if !strings.Contains(summary, "to fit GitHub's 1 MiB job summary limit") {
		t.Error("summary does not say what it left out")
	}
	checkStructure(t, summary)
	// All 2,000 rows fit the summary; only details were dropped.
	if !strings.Contains(summary, "fail-1999") || !strings.Contains(summary, "Failed and errored cases (2,000)") {
		t.Error("summary should list every failed case before dropping rows")
	}
}

func TestCommentDropsPassingCasesFirst(t *testing.T) {
	t.Parallel()
	run := syntheticRun(3, 3000, 500, DetailsFailures)
	body := Comment(run, testMarker)
	checkComment(t, body)
	if !strings.Contains(body, "3,000 passing cases omitted to fit GitHub's 65,536-character comment limit.") {
		t.Errorf("comment does not say the passing cases were omitted:\n%.3000s", body)
	}
	if strings.Contains(body, "pass-0000") {
		t.Error("passing rows should be omitted as a whole")
	}
	for i := range 3 {
		if id := fmt.Sprintf("fail-%04d", i); strings.Count(body, id) < 2 {
			t.Errorf("%s should have its row and its details", id)
		}
	}
	if strings.Contains(body, "failed or errored cases omitted") || strings.Contains(body, "case details omitted") {
		t.Error("failures were cut although passing cases made room")
	}
}

func TestFullReportWhenItFits(t *testing.T) {
	t.Parallel()
	run := syntheticRun(5, 20, 300, DetailsAll)
	body := Comment(run, testMarker)
	checkComment(t, body)
	if strings.Contains(body, "omitted") {
		t.Error("nothing should be omitted from a small report")
	}
	// One per case, the passing table, and the fold around the 20 passing details.
	if got := strings.Count(body, "<details>"); got != 5+20+1+1 {
		t.Errorf("%d <details> blocks; want one per case, the passing table and one fold", got)
	}
}

func TestHeadlineOnly(t *testing.T) {
	t.Parallel()
	run := syntheticRun(50, 10, 100, DetailsFailures)
	v := buildView(run, testMarker, commentSurface.lim)
	// A budget that holds the headline, the notice and the footer, but not one case row.
	headOnly := render(v, layout{}, commentSurface)
	s := commentSurface
	s.maxRunes = utf8.RuneCountInString(headOnly) + 10
	lay := plan(v, s)
	if lay != (layout{}) {
		t.Fatalf("layout = %+v; want headline only", lay)
	}
	out := renderSurface(run, testMarker, s)
	if !s.fits(sizeOf(out)) {
		t.Errorf("headline-only report does not fit its budget: %d characters", utf8.RuneCountInString(out))
	}
	for _, want := range []string{"50 failed or errored cases omitted", "10 passing cases omitted", "case details omitted"} {
		if !strings.Contains(out, want) {
			t.Errorf("headline-only report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| Case |") {
		t.Error("headline-only report still has a table")
	}
}

// The final check shrinks the plan when the estimate was too generous.
func TestShrinkUntilItFits(t *testing.T) {
	t.Parallel()
	run := syntheticRun(40, 40, 2000, DetailsAll)
	s := summarySurface
	s.maxBytes = 30_000
	out := renderSurface(run, "", s)
	if len(out) > s.maxBytes {
		t.Fatalf("report has %d bytes, over %d", len(out), s.maxBytes)
	}
	lay := layout{failRows: 40, failDetails: 40, passRows: 40, passDetails: 40}
	for lay.shrink() {
	}
	if lay != (layout{}) {
		t.Errorf("shrink stopped at %+v", lay)
	}
}

func TestHostileRecordCannotBreakMarkdown(t *testing.T) {
	t.Parallel()
	for _, d := range []DetailLevel{DetailsFailures, DetailsAll, DetailsNone} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			run := fixtureRun(t)
			run.Details = d
			comment := Comment(run, testMarker)
			summary := Summary(run)
			checkComment(t, comment)
			checkStructure(t, summary)
			if n := strings.Count(comment, "<!--"); n != 1 {
				t.Errorf("comment has %d comment openers; want only the marker", n)
			}
			if strings.Contains(summary, "<!--") {
				t.Error("summary has an HTML comment opener")
			}
			for name, md := range map[string]string{"comment": comment, "summary": summary} {
				checkNoLiveText(t, name, md)
			}
			if d == DetailsNone && strings.Contains(comment, "forged") {
				t.Error("details none still shows model text")
			}
		})
	}
}

func checkNoLiveText(t *testing.T, name, md string) {
	t.Helper()
	for _, bad := range []string{"@org/team", "@alice", "#123", "\x00", "\x1b", "<script", "</details><", "key=forged -->"} {
		if strings.Contains(md, bad) {
			t.Errorf("%s contains %q", name, bad)
		}
	}
	if !utf8.ValidString(md) {
		t.Errorf("%s is not valid UTF-8", name)
	}
}

// A 100,000-case run renders within the budgets; fragments past the budget are never built.
func BenchmarkReports100k(b *testing.B) {
	run := syntheticRun(100_000, 0, 2000, DetailsFailures)
	b.ResetTimer()
	for b.Loop() {
		if c := Comment(run, testMarker); utf8.RuneCountInString(c) > CommentLimit {
			b.Fatal("comment over budget")
		}
		if s := Summary(run); len(s) > SummaryLimit {
			b.Fatal("summary over budget")
		}
	}
}

// A step summary file already partly filled leaves less than the limit: the summary degrades
// to what fits, keeping at least the headline.
func TestSummaryWithin(t *testing.T) {
	t.Parallel()
	run := syntheticRun(30, 30, 500, DetailsAll)
	full := Summary(run)
	for _, budget := range []int{len(full) + 100, len(full) / 2, 3000, 0, -5} {
		out := SummaryWithin(run, budget)
		if !strings.HasPrefix(out, "## ") || !strings.Contains(out, "AgentV evals: fail") || !strings.Contains(out, "**Outcome: fail**") {
			t.Errorf("budget %d: the headline is missing:\n%.400s", budget, out)
		}
		switch {
		case budget >= len(full):
			if out != full {
				t.Errorf("budget %d: the whole summary fits but was cut", budget)
			}
		case budget >= 3000:
			if len(out) > budget {
				t.Errorf("budget %d: %d bytes", budget, len(out))
			}
			if !strings.Contains(out, "omitted to fit") {
				t.Errorf("budget %d: no notice of what was left out", budget)
			}
		}
	}
	if got := SummaryWithin(run, 10*SummaryLimit); got != full {
		t.Error("a budget above SummaryLimit should not raise the summary's own limit")
	}
}
