package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/google/go-cmp/cmp"
)

func TestAggregate(t *testing.T) {
	t.Parallel()
	r := func(name string, score, weight float64, reasoning, errMsg string, hits, misses []string) results.EvaluatorResult {
		return results.EvaluatorResult{Name: name, Score: score, Weight: weight, Reasoning: reasoning, Error: errMsg, Hits: hits, Misses: misses}
	}
	tests := []struct {
		name        string
		results     []results.EvaluatorResult
		wantScore   float64
		wantErrored bool
		wantReason  string
		wantHits    []string
		wantMisses  []string
	}{
		{name: "plain mean", results: []results.EvaluatorResult{r("a", 1, 1, "good", "", []string{"h1"}, nil), r("b", 0.5, 1, "meh", "", nil, []string{"m1"})},
			wantScore: 0.75, wantReason: "a: good | b: meh", wantHits: []string{"h1"}, wantMisses: []string{"m1"}},
		{name: "weighted", results: []results.EvaluatorResult{r("a", 1, 3, "", "", []string{"h1"}, nil), r("b", 0, 1, "", "", []string{"h2"}, []string{"m1", "m2"})},
			wantScore: 0.75, wantHits: []string{"h1", "h2"}, wantMisses: []string{"m1", "m2"}},
		{name: "zero weight excluded", results: []results.EvaluatorResult{r("a", 1, 0, "ignored", "", nil, nil), r("b", 0.2, 1, "", "", nil, nil)},
			wantScore: 0.2, wantReason: "a: ignored"},
		{name: "all weights zero", results: []results.EvaluatorResult{r("a", 1, 0, "", "", nil, nil), r("b", 1, 0, "", "", nil, nil)},
			wantScore: 0},
		{name: "errored evaluator counts as zero", results: []results.EvaluatorResult{r("a", 1, 1, "", "", nil, nil), r("b", 0, 1, "boom", "boom", nil, []string{"b failed"})},
			wantScore: 0.5, wantErrored: true, wantReason: "b: boom", wantMisses: []string{"b failed"}},
		{name: "no evaluators", wantScore: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := &Outcome{Results: tt.results}
			aggregate(out)
			if out.Score != tt.wantScore || out.Errored != tt.wantErrored || out.Reasoning != tt.wantReason {
				t.Errorf("score %v errored %v reasoning %q; want %v %v %q", out.Score, out.Errored, out.Reasoning, tt.wantScore, tt.wantErrored, tt.wantReason)
			}
			if diff := cmp.Diff(append([]string{}, tt.wantHits...), out.Hits); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(append([]string{}, tt.wantMisses...), out.Misses); diff != "" {
				t.Errorf("misses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluateWeightsAndTypes(t *testing.T) {
	t.Parallel()
	ms := 100.0
	latencyOK := &suite.EvaluatorSpec{Name: "fast", Type: "latency", Settings: json.RawMessage(`{"threshold": 500}`)}
	latencyBad := &suite.EvaluatorSpec{Name: "slow", Type: "latency", Weight: 3, WeightSet: true, Settings: json.RawMessage(`{"threshold": 50}`)}
	zero := &suite.EvaluatorSpec{Name: "zero", Type: "latency", Weight: 0, WeightSet: true, Settings: json.RawMessage(`{"threshold": 500}`)}
	rubric := &suite.EvaluatorSpec{Name: "rb", Type: "rubric", Weight: 1}
	unknown := &suite.EvaluatorSpec{Type: "vibes", Weight: 1}
	c := riskCase(t.TempDir(), latencyOK, latencyBad, zero, rubric, unknown)
	in := riskInput(c, "x")
	in.Trace = &results.TraceSummary{DurationMS: &ms}
	out := Evaluate(t.Context(), in, &Options{})

	type row struct {
		Name, Type, Verdict string
		Score, Weight       float64
		Errored             bool
	}
	var got []row
	for _, r := range out.Results {
		got = append(got, row{r.Name, r.Type, r.Verdict, r.Score, r.Weight, r.Error != ""})
	}
	want := []row{
		{"fast", "latency", "pass", 1, 1, false},
		{"slow", "latency", "fail", 0, 3, false},
		{"zero", "latency", "pass", 1, 0, false},
		{"rb", "rubric", "fail", 0, 1, true},
		{"vibes", "vibes", "fail", 0, 1, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	// (1*1 + 0*3 + 1*0 + 0*1 + 0*1) / 6
	if want := 1.0 / 6; out.Score != want || !out.Errored {
		t.Errorf("score %v errored %v, want %v true", out.Score, out.Errored, want)
	}
	if !strings.Contains(out.Results[3].Error, "rubric evaluator needs `rubrics`") ||
		!strings.Contains(out.Results[4].Error, `unknown evaluator type "vibes"`) {
		t.Errorf("errors: %q, %q", out.Results[3].Error, out.Results[4].Error)
	}
	if out.DefaultJudgeRequest != nil {
		t.Error("DefaultJudgeRequest set although evaluators were configured")
	}
	for _, r := range out.Results {
		if r.Hits == nil || r.Misses == nil {
			t.Errorf("%s: nil hits or misses would render as null", r.Name)
		}
	}
}

func TestEvaluateNilInputs(t *testing.T) {
	t.Parallel()
	out := Evaluate(t.Context(), nil, nil)
	if len(out.Results) != 1 || !out.Errored || out.Results[0].Name != DefaultJudgeName {
		t.Errorf("outcome = %+v", out)
	}
}
