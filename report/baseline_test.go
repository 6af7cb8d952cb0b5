package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
)

func baselineRecord(ds, id string, line int, score float64, trials ...float64) *results.Record {
	r := &results.Record{EvalID: id, Dataset: ds, Target: "default", File: "evals/" + ds + ".yaml", Line: line,
		Score: score, Verdict: results.VerdictPass, DurationMS: 1200}
	if score < 0.8 {
		r.Verdict = results.VerdictFail
		r.Misses = []string{"did not mention the refund window"}
	}
	pass := 0
	for i, s := range trials {
		v := results.VerdictFail
		if s >= 0.8 {
			v, pass = results.VerdictPass, pass+1
		}
		r.Trials = append(r.Trials, results.Trial{Trial: i + 1, Score: s, Verdict: v})
	}
	r.Flaky = pass > 0 && pass < len(trials)
	return r
}

// baselineRun is a run of 14 cases in two datasets compared with a baseline: two cases fell
// (one now fails), one rose, one moved within its trials' noise (flaky), one is new and one
// was removed.
func baselineRun(t testing.TB) *Run {
	t.Helper()
	var before, after []*results.Record
	for i := range 12 {
		ds := []string{"billing", "support"}[i%2]
		id := fmt.Sprintf("%s-%02d", ds, i)
		before = append(before, baselineRecord(ds, id, 4+i*5, 0.9))
		after = append(after, baselineRecord(ds, id, 4+i*5, 0.9))
	}
	before[3] = baselineRecord("support", "support-03", 19, 0.95)
	after[3] = baselineRecord("support", "support-03", 19, 0.35) // fails now
	before[4] = baselineRecord("billing", "billing-04", 24, 1)
	after[4] = baselineRecord("billing", "billing-04", 24, 0.8) // passes, but fell
	before[6] = baselineRecord("billing", "billing-06", 34, 0.5)
	after[6] = baselineRecord("billing", "billing-06", 34, 0.9)
	before[8] = baselineRecord("billing", "billing-08", 44, 0.9, 1, 1, 0.6, 1, 0.9)
	after[8] = baselineRecord("billing", "billing-08", 44, 0.7, 0.6, 1, 0.6, 0.4, 0.9)
	before = append(before, baselineRecord("support", "support-retired", 70, 1))
	after = append(after, baselineRecord("support", "support-new-refund-rule", 75, 1))

	base, err := compare.Read(strings.NewReader(jsonlOf(t, before...)))
	if err != nil {
		t.Fatal(err)
	}
	base.Source = "run 41 on main"
	c := compare.NewComparer(base, compare.DefaultMargin)
	for _, r := range after {
		c.Add(r)
	}
	res := c.Result()
	zero := 0
	opts := gate.Defaults()
	opts.MaxFailures, opts.MaxRegressions = 1, &zero
	counts := tally(after)
	counts.Baseline = res.Gate()
	return &Run{Records: after, Baseline: res, Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts,
		Links: Links{ServerURL: "https://github.com", Repo: "acme/app", SHA: "abc123"}}
}

// The comparison reads first: the headline has the mean's change and the counts, and the
// first table is the regressions, worst first, with before → after and why.
func TestBaselineReport(t *testing.T) {
	t.Parallel()
	for _, surface := range []string{"summary", "comment"} {
		t.Run(surface, func(t *testing.T) {
			t.Parallel()
			run := baselineRun(t)
			md := Summary(run)
			if surface == "comment" {
				md = Comment(run, testMarker)
			}
			for _, want := range []string{
				"**Against the baseline** (run 41 on main): mean score 0.879 → 0.829, Δ **−0.050** (95% interval −0.183 to +0.067) over 12 cases in both runs",
				"🔻 2 regressed · 🔺 1 improved · 🆕 1 new · 🗑️ 1 removed · 〰️ 1 within the noise",
				"2 cases regressed against the baseline (max-regressions 0): support-03, billing-04",
				"<summary>🔺 Improvements (1)</summary>",
				"billing-08](https://github.com/acme/app/blob/abc123/evals/billing.yaml#L44) 🎲 flaky | 0.900 → 0.700 | −0.200 | p = 0.131 > 0.05 (5 + 5 trials)",
				"| support | 6 | 0.908 → 0.808 | −0.100 | 1 | 0 |",
				"xychart-beta",
			} {
				if !strings.Contains(md, want) {
					t.Errorf("%s lacks %q", surface, want)
				}
			}
			checkRendered(t, "baseline-"+surface, md)
			root, _ := parseHTML(t, cmarkGFM(t, md))
			tables := root.all("table")
			if len(tables) == 0 {
				t.Fatal("no table")
			}
			rows := tables[0].rows()
			var got []string
			for _, r := range rows {
				var cells []string
				for _, c := range r {
					cells = append(cells, strings.TrimSpace(c.text.String()))
				}
				got = append(got, strings.Join(cells, " | "))
			}
			want := []string{
				"Case | Before → after | Δ | Why",
				"support-03 | 0.950 → 0.350 | −0.600 | did not mention the refund window · one run each (no trials to test)",
				"billing-04 | 1.000 → 0.800 | −0.200 | one run each (no trials to test)",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("first table:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// Without a baseline the reports do not change (the goldens check it byte for byte); with
// one the console says how the run compares.
func TestBaselineConsole(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	Console(&b, baselineRun(t), false)
	for _, want := range []string{
		"Against the baseline (run 41 on main):",
		"Regressed: 2   Improved: 1   New: 1   Removed: 1   Within the noise: 1",
		"  - support-03: 0.950 -> 0.350 (-0.600)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, b.String())
		}
	}
}

// A case whose trials ran under pass_at_k stopped at its first pass: one score before, five
// after cannot make a fall significant, and the reports say why and what to run instead.
func TestBaselinePassAtKNote(t *testing.T) {
	t.Parallel()
	before := baselineRecord("ds", "steady", 3, 1, 1)
	after := baselineRecord("ds", "steady", 3, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4)
	before.TrialStrategy, after.TrialStrategy = "pass_at_k", "pass_at_k"
	base, err := compare.Read(strings.NewReader(jsonlOf(t, before)))
	if err != nil {
		t.Fatal(err)
	}
	c := compare.NewComparer(base, compare.DefaultMargin)
	c.Add(after)
	res := c.Result()
	run := &Run{Records: []*results.Record{after}, Baseline: res, Gate: gate.Defaults(), Counts: tally([]*results.Record{after})}
	if res.PassAtK != 1 || res.Count(compare.Noisy) != 1 {
		t.Fatalf("PassAtK %d, %d within the noise; want 1 and 1", res.PassAtK, res.Count(compare.Noisy))
	}
	if md := Summary(run); !strings.Contains(md, "> ⚠️ 1 compared case ran `pass_at_k` trials, which stop at the first pass") ||
		!strings.Contains(md, "`--trials-strategy mean`") {
		t.Errorf("summary lacks the pass_at_k note:\n%s", md)
	}
	var b strings.Builder
	Console(&b, run, false)
	if !strings.Contains(b.String(), "Note: 1 compared case ran pass_at_k trials") {
		t.Errorf("console lacks the pass_at_k note:\n%s", b.String())
	}
	for _, md := range []string{Summary(baselineRun(t)), Comment(baselineRun(t), testMarker)} {
		if strings.Contains(md, "ran `pass_at_k` trials") {
			t.Errorf("a run without pass_at_k trials has the note:\n%s", md)
		}
	}
}
