package suite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestV4TestFileRoot checks the errors for a `tests:` file whose document is not a list.
func TestV4TestFileRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, want string
	}{
		{"mapping", "id: a\ninput: hi\n", `cases.yaml:1:1: a test file must be a YAML list of tests, got a mapping [error structure]`},
		{"scalar", "\n\njust text\n", `cases.yaml:3:1: a test file must be a YAML list of tests, got a string [error structure]`},
		{"list", "- id: a\n  input: hi\n  criteria: ok\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, map[string]string{"eval.yaml": "tests: cases.yaml\n", "cases.yaml": tt.content}, "eval.yaml")
			all := formatDiags(s.Diagnostics)
			if tt.want == "" {
				if all != "" || len(s.Cases) != 1 {
					t.Errorf("got %d cases and diagnostics:\n%s", len(s.Cases), all)
				}
				return
			}
			if !strings.Contains(all, tt.want) {
				t.Errorf("diagnostics lack %q:\n%s", tt.want, all)
			}
			if len(s.Cases) != 0 {
				t.Errorf("got %d cases, want none", len(s.Cases))
			}
		})
	}
}

// TestV4FileInterpolation checks that ${{ VAR }} is replaced in tests files and case files too.
func TestV4FileInterpolation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"tests file", map[string]string{"eval.yaml": "tests: cases.yaml\n", "cases.yaml": "- id: a\n  input: ${{ Q }}\n  criteria: ok\n"}},
		{"jsonl tests file", map[string]string{"eval.yaml": "tests: cases.jsonl\n", "cases.jsonl": `{"id": "a", "input": "${{ Q }}", "criteria": "ok"}` + "\n"}},
		{"case file", map[string]string{"eval.yaml": "tests: cases\n", "cases/a/case.yaml": "input: ${{ Q }}\ncriteria: ok\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, tt.files)
			s := Load(filepath.Join(root, "eval.yaml"), LoadOptions{Cwd: root,
				Env: func(string, string) func(string) (string, bool) {
					return func(k string) (string, bool) { return "the question", k == "Q" }
				}})
			if c := onlyCase(t, s); c.Question != "the question" {
				t.Errorf("input %q, want %q", c.Question, "the question")
			}
		})
	}
}
