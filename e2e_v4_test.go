package main_test

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
