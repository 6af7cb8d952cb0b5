package main

import (
	"os"
	"path/filepath"
	"testing"
)

// foreignOutputs tells the files agentv writes from a user's files of the same names.
func TestForeignOutputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		foreign    bool
	}{
		{"results.jsonl", `{"record":"run_start","format":1}` + "\n" + `{"eval_id":"a"}` + "\n", false},
		{"results.jsonl", `{"timestamp":"2025-01-01T00:00:00Z","eval_id":"a","dataset":"d"}` + "\n", false},
		{"results.jsonl", `{"test_id":"a","score":1}` + "\n", true}, // AgentV's
		{"results.jsonl", "my notes\n", true},
		{"summary.md", "## ✅ AgentV evals: pass\n\n**2 cases**", false},
		{"summary.md", "# Summary\n\n## ✅ AgentV evals: pass\n", true},
		{"comment.md", "<!-- agentv-action:v1 local -->\n## ✅ AgentV evals: pass\n", false},
		{"comment.md", "## ✅ AgentV evals: pass\n", true},
		{"junit.xml", `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="agentv" time="0.000">`, false},
		{"junit.xml", `<?xml version="1.0"?><testsuites name="pytest">`, true},
		{"junit.xml", "", true},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, tt.name), []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got := foreignOutputs(dir, []string{tt.name, "absent.md"})
		if (len(got) == 1) != tt.foreign || len(got) > 1 {
			t.Errorf("%s holding %q: foreign %v, want %v", tt.name, tt.text, got, tt.foreign)
		}
	}
}
