package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateMigrateHint: validate says how to move a 2.5 or 4.x YAML file to 5.x, once per
// file, and says nothing of the kind for a 5.x file or a JSONL one (migrate rewrites YAML).
func TestValidateMigrateHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		"targets.yaml":    "targets:\n  - name: default\n    provider: mock\n",
		"old.yaml":        "evalcases:\n  - id: a\n    input: hi\n",
		"my evals/4.yaml": "tests:\n  - id: a\n    input: hi\n    criteria: ok\n",
		"new.eval.yaml":   "prompts: [hi]\ntests:\n  - id: a\n    assert: [Says hello]\n",
		"lines.jsonl":     `{"id": "a", "input": "hi"}` + "\n",
		"lines4.jsonl":    `{"id": "b", "input": "hi", "criteria": "ok"}` + "\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: dir}
	if code := c.Main(t.Context(), []string{"validate", "old.yaml", "my evals/4.yaml", "new.eval.yaml", "lines.jsonl", "lines4.jsonl"}); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"old.yaml: written for AgentV 2.5, which this action still runs; to move it to AgentV 5.x, migrate with: agentv migrate old.yaml\n",
		"my evals/4.yaml: written for AgentV 4.x, which this action still runs; to move it to AgentV 5.x, migrate with: agentv migrate 'my evals/4.yaml'\n",
	} {
		if n := strings.Count(out, want); n != 1 {
			t.Errorf("%q printed %d times, want once:\n%s", want, n, out)
		}
	}
	if n := strings.Count(out, "agentv migrate"); n != 2 {
		t.Errorf("%d migrate hints, want 2 (none for 5.x or JSONL):\n%s", n, out)
	}
}
