package suite

import (
	"strings"
	"testing"
)

// TestV4Trials checks `execution.trials`: the defaults, each strategy, the cost limit under
// both spellings, and a positioned error for every bad value (the file then runs no trials).
func TestV4Trials(t *testing.T) {
	t.Parallel()
	const tests = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n"
	tests2 := []struct {
		name, exec string
		want       *Trials
		wantDiag   string // substring of the diagnostics, "" for none
		wantError  bool
	}{
		{name: "count only", exec: "  trials:\n    count: 3\n", want: &Trials{Count: 3, Strategy: TrialsPassAtK}},
		{name: "mean", exec: "  trials: {count: 5, strategy: mean}\n", want: &Trials{Count: 5, Strategy: TrialsMean}},
		{name: "confidence interval with a limit", exec: "  trials: {count: 4, strategy: confidence_interval, cost_limit_usd: 0.5}\n",
			want: &Trials{Count: 4, Strategy: TrialsConfidenceInterval, CostUSD: 0.5}},
		{name: "camelCase limit", exec: "  trials: {count: 2, costLimitUsd: 2}\n", want: &Trials{Count: 2, Strategy: TrialsPassAtK, CostUSD: 2}},
		{name: "count 1", exec: "  trials: {count: 1}\n", want: &Trials{Count: 1, Strategy: TrialsPassAtK}},
		{name: "null", exec: "  trials:\n", want: nil},
		{name: "zero", exec: "  trials: {count: 0}\n", wantDiag: `2:19: trials "count" must be a whole number from 1 to 100, got "0"`, wantError: true},
		{name: "fraction", exec: "  trials: {count: 2.5}\n", wantDiag: `trials "count" must be a whole number from 1 to 100, got "2.5"`, wantError: true},
		{name: "too many", exec: "  trials: {count: 101}\n", wantDiag: `got "101"`, wantError: true},
		{name: "string count", exec: "  trials: {count: many}\n", wantDiag: `got "many"`, wantError: true},
		{name: "no count", exec: "  trials: {strategy: mean}\n", wantDiag: `2:3: execution "trials" needs "count"`, wantError: true},
		{name: "bad strategy", exec: "  trials: {count: 2, strategy: best}\n",
			wantDiag: `trials "strategy" must be one of pass_at_k, mean, confidence_interval, got "best"`, wantError: true},
		{name: "bad limit", exec: "  trials: {count: 2, cost_limit_usd: -1}\n",
			wantDiag: `trials "cost_limit_usd" must be a number of US dollars above 0, got "-1"`, wantError: true},
		{name: "not a mapping", exec: "  trials: 3\n", wantDiag: `execution "trials" must be a mapping`, wantError: true},
		{name: "unknown key", exec: "  trials: {count: 2, strategey: mean}\n", want: &Trials{Count: 2, Strategy: TrialsPassAtK},
			wantDiag: `unknown key "strategey" in trials (ignored); did you mean "strategy"?`},
	}
	for _, tt := range tests2 {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, map[string]string{"s.eval.yaml": "execution:\n" + tt.exec + tests}, "s.eval.yaml")
			diags := formatDiags(s.Diagnostics)
			if tt.wantDiag == "" && diags != "" || !strings.Contains(diags, tt.wantDiag) {
				t.Errorf("diagnostics:\n%s\nwant one containing %q", diags, tt.wantDiag)
			}
			if HasErrors(s.Diagnostics) != tt.wantError {
				t.Errorf("errors = %v, want %v", HasErrors(s.Diagnostics), tt.wantError)
			}
			switch {
			case tt.want == nil && s.Trials != nil:
				t.Errorf("trials = %+v, want none", *s.Trials)
			case tt.want != nil && (s.Trials == nil || *s.Trials != *tt.want):
				t.Errorf("trials = %+v, want %+v", s.Trials, *tt.want)
			}
		})
	}
}

// TestV4TestTrialsIgnored checks that a test's own `execution.trials` is ignored with a
// warning saying where trials belong, as AgentV 4.x only reads the file's.
func TestV4TestTrialsIgnored(t *testing.T) {
	t.Parallel()
	s := loadTree(t, map[string]string{"s.eval.yaml": "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    execution:\n      trials: {count: 3}\n"}, "s.eval.yaml")
	c := onlyCase(t, s)
	if c.ID != "a" || s.Trials != nil {
		t.Errorf("case %q, trials %+v: want case a and no trials", c.ID, s.Trials)
	}
	if d := formatDiags(s.Diagnostics); !strings.Contains(d, `6:7: a test's execution "trials" is ignored`) {
		t.Errorf("diagnostics:\n%s\nwant the ignored test-level trials", d)
	}
}

// TestJSONLSidecarTrials checks that a JSONL suite's sidecar sets trials for its tests.
func TestJSONLSidecarTrials(t *testing.T) {
	t.Parallel()
	s := loadTree(t, map[string]string{
		"set.jsonl": `{"id": "a", "input": "hi", "criteria": "ok"}` + "\n",
		"set.yaml":  "execution:\n  trials: {count: 2, strategy: mean}\n",
	}, "set.jsonl")
	onlyCase(t, s)
	if s.Trials == nil || *s.Trials != (Trials{Count: 2, Strategy: TrialsMean}) {
		t.Errorf("trials = %+v, want 2 mean", s.Trials)
	}
}
