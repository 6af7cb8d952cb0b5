package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestV4Suite runs an AgentV 4.x suite (tests, criteria, assertions) beside a 2.5 suite in one
// run. With a mock target and a mock judge that always answers 0.75, AgentV 4.42.4 scores the
// criteria-only test 0.75 (its default grader) and the test with a weight-2 llm-grader and a
// latency check (no duration from a mock: 0) 0.5; the run must give the same. A value read
// through ${{ VAR }} is masked in the results.
func TestV4Suite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: The answer is 42.
    judge_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.75, "hits": ["states 42"], "misses": ["no reasoning"], "reasoning": "mostly right"}'
`,
		"evals/v4.eval.yaml": `name: v4-e2e
tests:
  - id: criteria-only
    criteria: Answers 42
    input: What is the answer? Token ${{ V4_E2E_TOKEN }}
  - id: graded
    input: What is the answer?
    criteria: Answers 42
    assertions:
      - type: llm-grader
        weight: 2
      - type: latency
        threshold: 60000
`,
		"evals/old.yaml": "evalcases:\n  - id: legacy\n    expected_outcome: Answers 42\n    input: What is the answer?\n",
	})
	res := agentv(t, dir, []string{"V4_E2E_TOKEN=tok-v4-e2e-secret"}, "eval", "evals")
	if res.code != 1 { // 0.5 and 0.75 are below the default case threshold
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]struct {
		score   float64
		dataset string
		graders string
	}{
		"criteria-only": {0.75, "v4-e2e", "llm_judge"},
		"graded":        {0.5, "v4-e2e", "llm-grader latency"},
		"legacy":        {0.75, "old", "llm_judge"},
	}
	got := res.byID()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(got), len(want), res.stdout)
	}
	for id, w := range want {
		r := got[id]
		if r == nil {
			t.Errorf("no record for %s", id)
			continue
		}
		var names []string
		for _, e := range r.EvaluatorResults {
			names = append(names, e.Name)
		}
		if r.Score != w.score || r.Dataset != w.dataset || strings.Join(names, " ") != w.graders {
			t.Errorf("%s: score %v dataset %q graders %q, want %v %q %q", id, r.Score, r.Dataset, names, w.score, w.dataset, w.graders)
		}
	}
	if q := got["criteria-only"].LMProviderRequest; !strings.Contains(string(q), "Token ***") {
		t.Errorf("criteria-only request %s lacks the interpolated, masked input", q)
	}
	b, err := os.ReadFile(filepath.Join(res.outDir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "tok-v4-e2e-secret") || strings.Contains(res.stdout+res.stderr, "tok-v4-e2e-secret") {
		t.Errorf("a value read through ${{ VAR }} reached the results or the console")
	}
}

// TestV4Validate checks `agentv validate` on both dialects with the real grader settings: a
// 4.x file using most grader types validates, a file mixing `tests` and `evalcases` does not.
func TestV4Validate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	tests := []struct {
		name, file string
		code       int
		want       string
	}{
		{name: "graders", code: 0, want: "1 eval file, 1 case, 0 errors, 0 warnings", file: `name: chk
tests:
  - id: r
    input: hi
    assertions:
      - Is polite
      - type: rubrics
        criteria:
          - {id: c1, outcome: Polite, weight: 2, required: true}
          - {id: c2, outcome: Short, min_score: 0.7, score_ranges: {"0": bad, "6": good}}
          - {id: c3, outcome: Not rude, operator: contradiction}
      - type: field-accuracy
        fields: [{path: a.b, match: numeric_tolerance, tolerance: 0.1, relative: true, required: true, weight: 2}]
        aggregation: weighted_average
      - type: tool-trajectory
        mode: in_order
        args_match: superset
        expected: [{tool: search, args: {q: x}, args_match: ignore, max_duration_ms: 100}]
      - type: composite
        assertions:
          - type: llm-grader
          - type: latency
            threshold: 10
        aggregator: {type: weighted_average, weights: {llm-grader: 1, latency: 2}}
      - type: code-grader
        command: [python3, grade.py]
      - type: token-usage
        max_total: 100
      - type: cost
        budget: 1
`},
		{name: "mixed", code: 2, want: `r.eval.yaml:1:1: the file mixes two dialects: "tests" (AgentV 4.x) at line 3 and "evalcases" (AgentV 2.5) at line 1`,
			file: "evalcases:\n  - {id: a, input: hi}\ntests:\n  - {id: b, input: hi, criteria: ok}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"targets.yaml": mockTargets, "r.eval.yaml": tt.file, "grade.py": "print('{}')\n"})
			res := agentv(t, dir, nil, "validate", "r.eval.yaml")
			if res.code != tt.code || !strings.Contains(res.stdout+res.stderr, tt.want) {
				t.Errorf("exit %d, want %d and output containing %q:\n%s%s", res.code, tt.code, tt.want, res.stdout, res.stderr)
			}
		})
	}
}
