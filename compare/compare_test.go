package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "base.jsonl")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDialects(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		`{"record":"run_start","format":1,"timestamp":"2026-01-01T00:00:00.000Z"}`,
		// This program's record, with trials.
		`{"eval_id":"a","dataset":"ds","score":0.9,"verdict":"pass","target":"t","trials":[{"trial":1,"score":1,"verdict":"pass"},{"trial":2,"score":0.8,"verdict":"pass","duration_ms":0}],"flaky":false}`,
		// AgentV 2.5: no verdict.
		`{"eval_id":"b","dataset":"ds","score":0.5,"hits":[],"misses":[],"candidate_answer":"x","target":"t"}`,
		// An errored record counts 0 whatever its score says.
		`{"eval_id":"c","dataset":"ds","score":0.7,"error":"boom","target":"t"}`,
		// Later AgentV: test_id.
		`{"test_id":"d","dataset":"ds","score":1,"target":"t"}`,
		// AgentV 4.x's index.jsonl: test_id within suite, execution_status.
		`{"test_id":"f","suite":"ds","score":0.5,"target":"t","execution_status":"quality_failure"}`,
		`{"test_id":"g","suite":"ds","score":0.4,"target":"t","execution_status":"execution_error"}`,
		// Trials stopped at the first pass.
		`{"eval_id":"e","dataset":"ds","score":1,"verdict":"pass","target":"t","trials":[{"trial":1,"score":1,"verdict":"pass"}],"trial_strategy":"pass_at_k"}`,
		``,
		`{"record":"run_end","format":1,"timestamp":"2026-01-01T00:00:01.000Z","outcome":"pass"}`,
	}, "\n")
	b, err := Load(writeFile(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != 7 {
		t.Fatalf("Len = %d, want 7", b.Len())
	}
	if sum := sha256.Sum256([]byte(text)); b.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 = %s, want the file's", b.SHA256)
	}
	want := map[string]Side{
		"a": {Score: 0.9, Trials: []float64{1, 0.8}, Verdict: results.VerdictPass},
		"b": {Score: 0.5},
		"c": {Score: 0, Verdict: results.VerdictError},
		"d": {Score: 1},
		"e": {Score: 1, Trials: []float64{1}, Verdict: results.VerdictPass, PassAtK: true},
		"f": {Score: 0.5},
		"g": {Score: 0, Verdict: results.VerdictError},
	}
	for id, w := range want {
		if len(b.cases[Key{"ds", id}]) == 0 {
			t.Errorf("case %s of ds missing", id)
			continue
		}
		got := b.cases[Key{"ds", id}][0].side
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("case %s: %+v, want %+v", id, got, w)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{`{"eval_id":"a","score":1}` + "\nnot json", "line 2: not a results record"},
		{`{"dataset":"x","score":1}`, "line 1: field eval_id: missing"},
		{`{"eval_id":"a"}`, `line 1: field score: missing in case "a"`},
		{`{"eval_id":"a","score":1}` + "\n" + `{"eval_id":"a","score":0}`, `line 2: case "a" of dataset "" repeats line 1`},
	}
	for _, tt := range tests {
		p := writeFile(t, tt.text)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("Load(%q) = %v, want an error naming the file and %q", tt.text, err, tt.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.jsonl")); !errors.Is(err, ErrNoBaseline) {
		t.Errorf("missing file: %v, want ErrNoBaseline", err)
	}
}

func rec(ds, id string, score float64, trials ...float64) *results.Record {
	r := &results.Record{EvalID: id, Dataset: ds, Target: "t", Score: score, Verdict: results.VerdictPass}
	if score < 0.8 {
		r.Verdict = results.VerdictFail
	}
	for i, s := range trials {
		r.Trials = append(r.Trials, results.Trial{Trial: i + 1, Score: s, Verdict: results.VerdictPass})
	}
	return r
}

// baselineOf writes records as a results file and loads it.
func baselineOf(t testing.TB, recs []*results.Record) *Baseline {
	t.Helper()
	var b strings.Builder
	w := results.NewWriter(&b)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	base, err := Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return base
}

func TestCompareSingleSamples(t *testing.T) {
	t.Parallel()
	base := baselineOf(t, []*results.Record{
		rec("ds", "same", 1), rec("ds", "worse", 0.9), rec("ds", "much-worse", 1), rec("ds", "better", 0.2),
		rec("ds", "small-drop", 0.9), rec("ds", "gone", 1), rec("other", "same", 0.5),
	})
	c := NewComparer(base, 0.1)
	now := []*results.Record{
		rec("ds", "same", 1), rec("ds", "worse", 0.5), rec("ds", "much-worse", 0), rec("ds", "better", 0.9),
		rec("ds", "small-drop", 0.8), rec("ds", "fresh", 1), rec("other", "same", 0.5),
	}
	for _, r := range now {
		c.Add(r)
	}
	res := c.Result()
	var got []string
	for _, x := range res.Cases {
		got = append(got, fmt.Sprintf("%s:%s:%+.1f", x.Label, x.Class, x.Delta))
	}
	want := "ds/much-worse:regressed:-1.0 ds/worse:regressed:-0.4 ds/better:improved:+0.7 ds/same:unchanged:+0.0 ds/small-drop:unchanged:-0.1 other/same:unchanged:+0.0 ds/fresh:new:+0.0 ds/gone:removed:+0.0"
	// Labels: "same" is in two datasets, so every label... only ambiguous ids get the dataset.
	want = strings.NewReplacer("ds/much-worse", "much-worse", "ds/worse", "worse", "ds/better", "better", "ds/small-drop", "small-drop", "ds/fresh", "fresh", "ds/gone", "gone").Replace(want)
	if g := strings.Join(got, " "); g != want {
		t.Errorf("cases:\n got %s\nwant %s", g, want)
	}
	if now[0].BaselineScore == nil || *now[0].BaselineScore != 1 || now[5].BaselineScore != nil {
		t.Errorf("baseline scores: same %v, fresh %v", now[0].BaselineScore, now[5].BaselineScore)
	}
	if len(res.Datasets) != 2 || res.Datasets[0].Name != "ds" || res.Datasets[0].Regressed != 2 {
		t.Errorf("datasets: %+v", res.Datasets)
	}
	g := res.Gate()
	zero := 0
	d := gate.Decide(gate.Counts{Total: 6, Passed: 6, Baseline: g}, gate.Options{CaseThreshold: 0.8, MaxRegressions: &zero})
	if d.Outcome != gate.Fail || !strings.Contains(d.Reason, "2 cases regressed against the baseline (max-regressions 0): much-worse, worse") {
		t.Errorf("gate: %+v", d)
	}
}

// A target that changed is compared with the old one when the id is not ambiguous.
func TestCompareTargetChanged(t *testing.T) {
	t.Parallel()
	c := NewComparer(baselineOf(t, []*results.Record{rec("ds", "a", 1)}), 0.1)
	r := rec("ds", "a", 0)
	r.Target = "new-model"
	c.Add(r)
	if res := c.Result(); res.Count(Regressed) != 1 {
		t.Errorf("cases: %+v", res.Cases[0])
	}
}

func TestCompareTrials(t *testing.T) {
	t.Parallel()
	base := baselineOf(t, []*results.Record{
		rec("ds", "real", 0.9, 0.9, 0.95, 0.85, 0.9, 0.92),
		rec("ds", "noise", 0.6, 1, 0, 1, 0, 1),
		rec("ds", "one-sample", 1),
	})
	c := NewComparer(base, 0.1)
	c.Add(rec("ds", "real", 0.3, 0.3, 0.35, 0.25, 0.3, 0.28))
	c.Add(rec("ds", "noise", 0.4, 0, 1, 0, 1, 0))
	flaky := rec("ds", "one-sample", 0.4, 1, 0, 0, 1, 0)
	flaky.Flaky = true
	c.Add(flaky)
	res := c.Result()
	got := map[string]Class{}
	for _, x := range res.Cases {
		got[x.ID] = x.Class
	}
	if got["real"] != Regressed || got["noise"] != Noisy || got["one-sample"] != Noisy {
		t.Errorf("classes %v, want real regressed, noise and one-sample noisy", got)
	}
	if res.Tested != 3 {
		t.Errorf("tested %d", res.Tested)
	}
}

// noise models how a case's trial scores scatter around its mean.
type noise func(rng *rand.Rand, mean float64) float64

var noises = map[string]noise{
	// A judge's continuous score.
	"continuous": func(rng *rand.Rand, mean float64) float64 { return min(1, max(0, mean+0.15*rng.NormFloat64())) },
	// Pass/fail with the mean as the chance of passing.
	"pass-fail": func(rng *rand.Rand, mean float64) float64 {
		if rng.Float64() < mean {
			return 1
		}
		return 0
	},
	// A three-level rubric.
	"rubric": func(rng *rand.Rand, mean float64) float64 {
		switch u := rng.Float64(); {
		case u < mean*mean:
			return 1
		case u < mean:
			return 0.5
		}
		return 0
	},
}

// simulate runs a suite twice with trials, the second time with the given cases' means
// lowered by drop, and returns the gate's decision with max-regressions 0.
func simulate(t testing.TB, rng *rand.Rand, nz noise, means []float64, trials int, dropped map[int]float64, maxDrop *float64) (gate.Decision, *Result) {
	run := func(shift map[int]float64) []*results.Record {
		var recs []*results.Record
		for i, m := range means {
			m -= shift[i]
			var ts []float64
			var sum float64
			for range trials {
				s := nz(rng, m)
				ts = append(ts, s)
				sum += s
			}
			r := rec("suite", fmt.Sprintf("case-%02d", i), sum/float64(trials), ts...)
			recs = append(recs, r)
		}
		return recs
	}
	c := NewComparer(baselineOf(t, run(nil)), DefaultMargin)
	now := run(dropped)
	for _, r := range now {
		c.Add(r)
	}
	res := c.Result()
	zero := 0
	counts := gate.TallyOf(now, func(r *results.Record) (results.Verdict, float64, *float64) {
		return r.Verdict, r.Score, r.CaseThreshold
	})
	counts.Baseline = res.Gate()
	return gate.Decide(counts, gate.Options{CaseThreshold: 0.8, MaxFailures: len(means), MaxRegressions: &zero, MaxMeanDrop: maxDrop}), res
}

// A noisy agent whose mean did not change must make a run report any regression in under
// 5% of runs, whatever the number of cases: the chance is bounded per run, not per case.
// (Ten cases with continuous scores come closest: each can fall past every trial of the
// baseline by chance in 1 of 252 runs, so about 4% of runs.)
func TestNoRealChangeRarelyRegresses(t *testing.T) {
	t.Parallel()
	for name, nz := range noises {
		for _, cases := range []int{10, 40} {
			t.Run(fmt.Sprintf("%s/%d cases", name, cases), func(t *testing.T) {
				t.Parallel()
				// Ten cases come closest to the bound: more runs keep the sampling error
				// (about 0.4% at 2,000 runs) well inside it.
				if testing.Short() {
					t.Skip("simulates thousands of runs; fewer would not tell 4% from 5%")
				}
				runs := 20_000 / cases
				rng := rand.New(rand.NewPCG(uint64(cases), uint64(len(name))))
				means := make([]float64, cases)
				for i := range means {
					means[i] = 0.3 + 0.6*rng.Float64()
				}
				failed, noisy := 0, 0
				for range runs {
					d, res := simulate(t, rng, nz, means, 5, nil, nil)
					if d.Outcome != gate.Pass {
						failed++
					}
					if res.Count(Regressed) > 0 != (d.Outcome == gate.Fail) {
						t.Fatalf("gate %+v with %d regressions", d, res.Count(Regressed))
					}
					noisy += res.Count(Noisy)
				}
				if rate := float64(failed) / float64(runs); rate >= 0.05 {
					t.Errorf("%d of %d runs with no real change reported a regression (%.1f%%)", failed, runs, 100*rate)
				}
				t.Logf("%d of %d runs reported a regression; %d cases moved beyond the margin within the noise", failed, runs, noisy)
			})
		}
	}
}

// A real fall of 0.5 in two cases is caught, in at least 9 runs of 10: with 8 trials a
// side in a 10-case suite, and with 10 trials a side in a 40-case suite. (With 5 trials a
// side the smallest p-value is 1/252, reached only when every trial after scores below
// every trial before; with this noise that catches both cases in about 2 runs of 3.)
func TestRealDropIsCaught(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ cases, trials, runs int }{{10, 8, 40}, {40, 10, 10}} {
		t.Run(fmt.Sprintf("%d cases %d trials", tt.cases, tt.trials), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, uint64(tt.cases)))
			means := make([]float64, tt.cases)
			for i := range means {
				means[i] = 0.75 + 0.2*rng.Float64()
			}
			caught := 0
			for range tt.runs {
				d, res := simulate(t, rng, noises["continuous"], means, tt.trials, map[int]float64{2: 0.5, 5: 0.5}, nil)
				got := res.Gate().Regressions
				if d.Outcome == gate.Fail && len(got) == 2 && got[0] != got[1] &&
					strings.Contains(d.Reason, "case-02") && strings.Contains(d.Reason, "case-05") {
					caught++
				}
			}
			if caught < tt.runs*9/10 {
				t.Errorf("both drops caught in %d of %d runs", caught, tt.runs)
			}
		})
	}
}

// max-mean-drop fails a run whose mean fell by more than the drop with the whole interval
// below zero, and passes one whose mean did not change.
func TestMaxMeanDrop(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	means := make([]float64, 30)
	for i := range means {
		means[i] = 0.8
	}
	drop := 0.05
	all := map[int]float64{}
	for i := range means {
		all[i] = 0.2
	}
	if d, res := simulate(t, rng, noises["continuous"], means, 1, all, &drop); d.Outcome != gate.Fail || !strings.Contains(d.Reason, "more than max-mean-drop 0.05") {
		t.Errorf("every case fell 0.2: %+v (mean %+v)", d, res.Mean)
	}
	if d, res := simulate(t, rng, noises["continuous"], means, 1, map[int]float64{0: 0.06}, &drop); strings.Contains(d.Reason, "max-mean-drop") {
		t.Errorf("one case fell 0.06: %+v (mean %+v)", d, res.Mean)
	}
}

// A 4.x index.jsonl after 4.42.4's --rerun-failed lists a test run again twice: its last row
// is the baseline, as 4.42.4's readers take it; another target's row stays its own case.
func TestLoadRerunIndex(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		`{"test_id":"a","suite":"ds","score":1,"target":"t","execution_status":"ok"}`,
		`{"test_id":"b","suite":"ds","score":0.2,"target":"t","execution_status":"quality_failure"}`,
		`{"test_id":"b","suite":"ds","score":0.4,"target":"u","execution_status":"quality_failure"}`,
		`{"test_id":"b","suite":"ds","score":0.9,"target":"t","execution_status":"ok"}`,
	}, "\n")
	b, err := Load(writeFile(t, text))
	if err != nil {
		t.Fatal(err)
	}
	cs := b.cases[Key{"ds", "b"}]
	if b.Len() != 3 || len(cs) != 2 || cs[0].target != "t" || cs[0].side.Score != 0.9 || cs[0].line != 4 || cs[1].side.Score != 0.4 {
		t.Errorf("Len %d, b's cases %+v %+v; want 3, b on t from line 4 (0.9) and on u (0.4)", b.Len(), cs[0], cs[len(cs)-1])
	}
}
