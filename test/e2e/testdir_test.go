package e2e_test

import (
	"strings"
	"testing"
)

// TestTestsDirectory runs `tests: <directory>` (one subdirectory per test, its case.yaml holding
// the test, the id defaulting to the subdirectory's name) from suites named EVAL.yaml and
// x.eval.yaml, found by walking a directory; the case files are parts of the suite, not suites.
// AgentV 4.42.4, run side by side on the same files, scores a-first 1 (contains Paris and the
// suite's contains Hello), custom-id 0.5 (no Berlin) and skips c-empty with a warning.
func TestTestsDirectory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	cases := map[string]string{
		"cases/a-first/case.yaml": "input: What is the capital of France?\nassertions:\n  - type: contains\n    value: Paris\n",
		"cases/b-second/case.yml": "id: custom-id\ninput: Name a city\nassertions:\n  - type: contains\n    value: Berlin\n",
		"cases/c-empty/notes.md":  "no case file here\n",
	}
	files := map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		".agentv/targets.yaml":    "targets:\n  - name: default\n    provider: mock\n    response: \"Hello, the capital of France is Paris.\"\n",
		"evals/one/EVAL.yaml":     "name: upper\nassertions:\n  - type: contains\n    value: Hello\ntests: cases\n",
		"evals/two/dir.eval.yaml": "name: dotted\nassertions:\n  - type: contains\n    value: Hello\ntests: ./cases/\n",
	}
	for name, body := range cases {
		files["evals/one/"+name] = body
		files["evals/two/"+name] = body
	}
	writeFiles(t, dir, files)
	res := agentv(t, dir, nil, "eval", "evals")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	scores := map[string]float64{}
	for _, r := range res.records {
		scores[r.Dataset+"/"+r.EvalID] = r.Score
	}
	want := map[string]float64{"upper/a-first": 1, "upper/custom-id": 0.5, "dotted/a-first": 1, "dotted/custom-id": 0.5}
	if len(scores) != len(want) {
		t.Fatalf("records %v, want %v\n%s", scores, want, res.stderr)
	}
	for k, w := range want {
		if scores[k] != w {
			t.Errorf("%s = %v, want %v", k, scores[k], w)
		}
	}
	if !strings.Contains(res.stderr, `evals/one/EVAL.yaml:5:8: test directory "evals/one/cases/c-empty" skipped: it has no case.yaml`) {
		t.Errorf("no warning for the subdirectory without case.yaml:\n%s", res.stderr)
	}
}
