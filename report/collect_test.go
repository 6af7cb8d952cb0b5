package report

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
)

// collected adds the run's records to a Collector in a shuffled completion order and returns
// the run rendered from what the collector kept instead of the records.
func collected(t testing.TB, run *Run, seed uint64) (*Run, *Collector) {
	t.Helper()
	recs := append([]*results.Record(nil), run.Records...)
	rand.New(rand.NewPCG(seed, 1)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	col := NewCollector(run.Details, run.Gate.CaseThreshold, 0)
	t.Cleanup(func() { _ = col.Close() })
	for _, r := range recs {
		col.Add(r)
	}
	out := *run
	out.Records, out.Cases, out.JUnitParts, out.sorted = nil, col.Cases(), col.Parts(), nil
	return &out, col
}

// renderAll renders every surface of a run.
func renderAll(t testing.TB, run *Run) map[string]string {
	t.Helper()
	var j, c bytes.Buffer
	if err := JUnit(&j, run); err != nil {
		t.Fatal(err)
	}
	Console(&c, run, false)
	return map[string]string{
		"junit.xml": j.String(), "summary.md": Summary(run), "comment.md": Comment(run, testMarker),
		"console.txt": c.String(),
	}
}

// manyFileRun is the fixture plus cases spread over several files with long texts, so the
// spool's runs of adjacent testcases are broken by the shuffle and some exceed 1 MiB.
func manyFileRun(t testing.TB) *Run {
	run := fixtureRun(t)
	long := strings.Repeat("a long judge explanation, ", 800) // ≈20 KB: cut when kept
	for i := range 120 {
		v, score := results.VerdictPass, 0.9
		switch i % 7 {
		case 3:
			v, score = results.VerdictFail, 0.2
		case 5:
			v, score = results.VerdictError, 0
		}
		r := &results.Record{
			EvalID: fmt.Sprintf("c-%03d", i%50), Dataset: "many", File: fmt.Sprintf("evals/f%d.yaml", i%3), Line: 10 + i,
			Score: score, Verdict: v, CandidateAnswer: "answer " + long[:i*100], Reasoning: long, Target: "default",
			Hits: []string{"ok"}, Misses: []string{"a miss"}, DurationMS: int64(i * 37), Attempts: 1 + i%3,
			EvaluatorResults: []results.EvaluatorResult{
				{Name: "rubric", Type: "llm_judge", Score: score, Weight: 1, Verdict: results.Band(score), Reasoning: long,
					Details: []byte(`{"x":1}`), EvaluatorProviderRequest: []byte(`{"user_prompt":"p"}`)},
			},
			LMProviderRequest: []byte(`{"question":"q"}`),
		}
		if v == results.VerdictError {
			r.Error = "target timed out"
		}
		if i%11 == 0 {
			cost := 0.001 * float64(i)
			r.TraceSummary = &results.TraceSummary{TokenUsage: &results.TokenUsage{Input: int64(i), Output: 2}, CostUSD: &cost}
		}
		run.Records = append(run.Records, r)
	}
	return run
}

// The reports rendered from a Collector are byte for byte those rendered from the records,
// at every details level, whatever order the cases finished in.
func TestCollectorRendersAsRecords(t *testing.T) {
	t.Parallel()
	for _, d := range []DetailLevel{DetailsFailures, DetailsAll, DetailsNone} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			want := manyFileRun(t)
			want.Details = d
			wantOut := renderAll(t, want)
			for seed := range uint64(3) {
				run := manyFileRun(t)
				run.Details = d
				got, col := collected(t, run, seed)
				if col.Parts() == nil {
					t.Fatal("no JUnit spool")
				}
				for name, out := range renderAll(t, got) {
					if diff := cmp.Diff(wantOut[name], out); diff != "" {
						t.Errorf("seed %d: %s differs (-records +collector):\n%s", seed, name, diff)
					}
				}
			}
		})
	}
}

// What the collector keeps: passing cases drop their text unless the details level shows it;
// kept records lose recorded prompts and keep long texts cut with their length noted.
func TestCollectorKeepsLittle(t *testing.T) {
	t.Parallel()
	run := manyFileRun(t)
	_, col := collected(t, run, 1)
	for _, c := range col.Cases() {
		warned := c.Record != nil && len(c.Record.Warnings) > 0
		switch {
		case c.Verdict == results.VerdictPass && !warned:
			if c.Record != nil {
				t.Errorf("%s: passing case kept its record", c.EvalID)
			}
		case c.Record == nil:
			t.Errorf("%s (%s): record not kept", c.EvalID, c.Verdict)
		default:
			r := c.Record
			if r.LMProviderRequest != nil || len(r.EvaluatorResults) > 0 && (r.EvaluatorResults[0].EvaluatorProviderRequest != nil || r.EvaluatorResults[0].Details != nil) {
				t.Errorf("%s: recorded prompts or details kept", c.EvalID)
			}
			if strings.HasPrefix(c.EvalID, "c-") && !strings.Contains(r.Reasoning, cutMark) {
				t.Errorf("%s: long reasoning not cut", c.EvalID)
			}
		}
	}
	all, _ := collected(t, func() *Run { r := manyFileRun(t); r.Details = DetailsAll; return r }(), 1)
	for _, c := range all.Cases {
		if c.Record == nil {
			t.Errorf("details all: %s lost its record", c.EvalID)
		}
	}
}

// Without a temporary directory there is no spool: every record is kept and JUnit is still
// complete.
func TestCollectorWithoutSpool(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	want := renderAll(t, manyFileRun(t))
	got, col := collected(t, manyFileRun(t), 2)
	if col.Parts() != nil {
		t.Fatal("spool created in a missing directory")
	}
	for _, c := range got.Cases {
		if c.Record == nil {
			t.Errorf("%s: record dropped without a spool", c.EvalID)
		}
	}
	for name, out := range renderAll(t, got) {
		if out != want[name] {
			t.Errorf("%s differs without a spool", name)
		}
	}
}

// With details "all", passing cases keep their text only while their rows could still fit
// the summary; past that their text goes, and the reports read the same as from records.
func TestCollectorDropsPassingTextPastBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("renders 32,000 cases")
	}
	run := syntheticRun(3, maxPassText+1, 50, DetailsAll)
	want := renderAll(t, run)
	got, col := collected(t, run, 4)
	for _, c := range col.Cases() {
		if c.Verdict == results.VerdictPass && c.Record != nil {
			t.Fatalf("%s kept its text past %d passing cases", c.EvalID, maxPassText)
		}
	}
	for name, out := range renderAll(t, got) {
		if out != want[name] {
			t.Errorf("%s differs once passing text is dropped:\n%s", name, cmp.Diff(want[name], out))
		}
	}
}

// minRowBytes is a true lower bound: the smallest possible row is not shorter.
func TestMinRowBytes(t *testing.T) {
	t.Parallel()
	c := &Case{Verdict: results.VerdictPass, Score: 0}
	v := buildView(&Run{Cases: []*Case{c}}, "", summarySurface.lim)
	row := v.row(c)
	if len(row) < minRowBytes {
		t.Errorf("row %q is %d bytes, below minRowBytes %d", row, len(row), minRowBytes)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", keepRunes+7)
	got := cut(long)
	if want := strings.Repeat("é", keepRunes) + cutMark + "7"; got != want {
		t.Errorf("cut kept %d bytes, want %d", len(got), len(want))
	}
	if s := strings.Repeat("x", keepRunes); cut(s) != s {
		t.Error("a text of keepRunes characters was cut")
	}
	// truncate counts what cut left out.
	if got, want := truncate(cut(long), 10), strings.Repeat("é", 10)+"… [16,381 more characters]"; got != want {
		t.Errorf("truncate(cut) = %q, want %q", got, want)
	}
	if got, want := truncate(long, 10), strings.Repeat("é", 10)+"… [16,381 more characters]"; got != want {
		t.Errorf("truncate = %q, want %q", got, want)
	}
	// Trailing newlines: trimmed or not, the count is the whole text's.
	nl := long + "tail\n\n\n"
	for _, s := range []string{nl, strings.Trim(nl, "\n")} {
		if got, want := truncate(strings.Trim(cut(nl), "\n"), 10), truncate(strings.Trim(s, "\n"), 10); s != nl && got != want {
			t.Errorf("trimmed: truncate(cut) = %q, want %q", got, want)
		}
		if got, want := truncate(cut(nl), 10), truncate(nl, 10); got != want {
			t.Errorf("untrimmed: truncate(cut) = %q, want %q", got, want)
		}
	}
	// Only newlines left: not cut.
	if s := strings.Repeat("x", keepRunes) + "\n\n"; cut(s) != s {
		t.Error("a text ending in newlines past keepRunes was cut")
	}
}

func BenchmarkCollectorAdd(b *testing.B) {
	recs := syntheticRun(0, 1000, 0, DetailsFailures).Records
	b.ReportAllocs()
	col := NewCollector(DetailsFailures, 0.8, 0)
	defer col.Close()
	i := 0
	for b.Loop() {
		col.Add(recs[i%len(recs)])
		i++
	}
}

// failingRun has more failed and errored cases than may keep their text, in several files,
// with scores spread so the lowest are scattered through the files. tiny makes the cases as
// small as they come (short ids, no text, no links), so that every failure row fits the
// summary and details of the first cases in report order show too.
func failingRun(nFail int, tiny bool) *Run {
	run := syntheticRun(0, 50, 0, DetailsFailures)
	if tiny {
		run.Links = Links{}
	}
	for i := range nFail {
		if tiny {
			r := &results.Record{EvalID: strconv.FormatInt(int64(i), 36), File: string(rune('a' + i%3)), Line: i,
				Score: float64((i*7919)%1000) / 2000, Verdict: results.VerdictFail}
			if i%5 == 0 {
				r.Verdict, r.Error, r.Score = results.VerdictError, "e", 0
			}
			run.Records = append(run.Records, r)
			continue
		}
		r := &results.Record{
			EvalID: fmt.Sprintf("f-%05d", i), Dataset: "big", File: fmt.Sprintf("evals/f%d.yaml", i%4), Line: 10 + i,
			Score: float64((i*7919)%1000) / 2000, Verdict: results.VerdictFail, Target: "default",
			Misses: []string{fmt.Sprintf("miss %d of a long list", i), "another"}, Reasoning: "judge says no",
			CandidateAnswer: "an answer", DurationMS: int64(i % 900),
			EvaluatorResults: []results.EvaluatorResult{{Name: "rubric", Type: "llm_judge", Score: 0.1, Verdict: "fail", Reasoning: "no"}},
		}
		if i%5 == 0 {
			r.Verdict, r.Error, r.Score = results.VerdictError, fmt.Sprintf("target timed out after %d s", i%60), 0
		}
		run.Records = append(run.Records, r)
	}
	run.Counts = tally(run.Records)
	run.Decision = gate.Decide(run.Counts, run.Gate)
	return run
}

// A run with more failures than any surface can detail keeps only the records it may show,
// and every report still reads as rendered from all the records.
func TestCollectorBoundsFailureRecords(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("renders 9,300 cases")
	}
	for _, tiny := range []bool{false, true} {
		t.Run(fmt.Sprintf("tiny=%v", tiny), func(t *testing.T) { t.Parallel(); checkBoundedFailures(t, tiny) })
	}
}

func checkBoundedFailures(t *testing.T, tiny bool) {
	const worst = 10
	n := maxFailText + 300
	want := renderAll(t, failingRun(n, tiny))
	if tiny && !strings.Contains(want["summary.md"], "<summary>❌") {
		t.Fatal("the tiny run's summary shows no failure details: the test would not exercise them")
	}
	run := failingRun(n, tiny)
	recs := append([]*results.Record(nil), run.Records...)
	rand.New(rand.NewPCG(7, 1)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	col := NewCollector(run.Details, run.Gate.CaseThreshold, worst)
	defer col.Close()
	for _, r := range recs {
		col.Add(r)
	}
	kept := 0
	for _, c := range col.Cases() {
		if c.Record != nil {
			kept++
		}
	}
	if kept > maxFailText+2*worst || kept < maxFailText {
		t.Errorf("%d records kept of %d failing cases, want between %d and %d", kept, n, maxFailText, maxFailText+2*worst)
	}
	got := *run
	got.Records, got.Cases, got.JUnitParts, got.sorted = nil, col.Cases(), col.Parts(), nil
	for name, out := range renderAll(t, &got) {
		if out != want[name] {
			t.Errorf("%s differs with bounded failure records:\n%s", name, cmp.Diff(want[name], out))
		}
	}
}

// minDetailsBytes is a true lower bound: the smallest possible details block is not shorter.
func TestMinDetailsBytes(t *testing.T) {
	t.Parallel()
	for _, vd := range []results.Verdict{results.VerdictFail, results.VerdictError} {
		b := detailsBlock(&Run{}, &results.Record{Verdict: vd}, vd, "", summarySurface.lim)
		if len(b) < minDetailsBytes {
			t.Errorf("%s block %q is %d bytes, below minDetailsBytes %d", vd, b, len(b), minDetailsBytes)
		}
	}
}

// A case kept without its text rebuilds its record with the evaluator verdicts recorded: a
// 4.x grader at 0.7 stays fail, a turn not sent stays skip, not a 2.5 band.
func TestCaseWithoutTextKeepsVerdicts(t *testing.T) {
	t.Parallel()
	r := &results.Record{EvalID: "c", Score: 0.35, Verdict: results.VerdictFail, EvaluatorResults: []results.EvaluatorResult{
		{Name: "g", Score: 0.7, Verdict: results.BandFail}, {Name: "turn-2", Score: 0, Verdict: results.BandSkip}, {Name: "old", Score: 0.7}}}
	var got []string
	for _, e := range newCase(r).record().EvaluatorResults {
		got = append(got, e.Name+":"+e.Verdict)
	}
	if s := strings.Join(got, " "); s != "g:fail turn-2:skip old:borderline" {
		t.Errorf("verdicts %q, want g:fail turn-2:skip old:borderline", s)
	}
}
