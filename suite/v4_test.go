package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/internal/textfmt"
)

// TestV4Interpolation checks `${{ VAR }}` in a 4.x file: from LoadOptions.Env, whole values
// keep their type, every resolved value but numbers and booleans goes to Secret, and an
// unset variable warns.
func TestV4Interpolation(t *testing.T) {
	t.Parallel()
	env := map[string]string{"Q": "What is the secret?", "N": "3", "KEY": "sk-123", "DIR": "fixtures"}
	tests := []struct {
		name, yaml  string
		wantText    string // the test's input text
		wantSecrets []string
		wantDiag    string // substring of a diagnostic, "" for none
	}{
		{name: "whole value", yaml: "tests:\n  - id: a\n    input: ${{ Q }}\n    criteria: ok\n",
			wantText: "What is the secret?", wantSecrets: []string{"What is the secret?"}},
		{name: "inside text", yaml: "tests:\n  - id: a\n    input: \"key ${{KEY}} and ${{ N }}\"\n    criteria: ok\n",
			wantText: "key sk-123 and 3", wantSecrets: []string{"sk-123"}},
		{name: "number keeps its type", yaml: "tests:\n  - id: a\n    input: hi\n    assertions:\n      - type: latency\n        threshold: ${{ N }}\n",
			wantText: "hi"},
		{name: "unset", yaml: "tests:\n  - id: a\n    input: \"x${{ NOPE }}y\"\n    criteria: ok\n",
			wantText: "xy", wantDiag: "3:12: environment variable NOPE is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "s.eval.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			var secrets []string
			var gotDir string
			s := Load(path, LoadOptions{Cwd: dir,
				Env: func(evalDir, _ string) func(string) (string, bool) {
					gotDir = evalDir
					return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
				},
				Secret: func(v string) { secrets = append(secrets, v) }})
			if gotDir != dir {
				t.Errorf("Env got evalDir %q, want %q", gotDir, dir)
			}
			if HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
				t.Fatalf("load failed:\n%s", formatDiags(s.Diagnostics))
			}
			if got := s.Cases[0].Question; got != tt.wantText {
				t.Errorf("input = %q, want %q", got, tt.wantText)
			}
			if !slices.Equal(secrets, tt.wantSecrets) {
				t.Errorf("secrets = %q, want %q", secrets, tt.wantSecrets)
			}
			diags := formatDiags(s.Diagnostics)
			if tt.wantDiag == "" && diags != "" || !strings.Contains(diags, tt.wantDiag) {
				t.Errorf("diagnostics:\n%s\nwant one containing %q", diags, tt.wantDiag)
			}
			if tt.name == "number keeps its type" {
				if got := string(s.Cases[0].Evaluators[0].Settings); !strings.Contains(got, `"threshold":3`) {
					t.Errorf("settings %s: threshold should be the number 3", got)
				}
			}
		})
	}
}

// TestV4Merge checks how a test's assertions combine with the suite's: the test's first, the
// suite's after, none of the suite's with skip_defaults; plain strings make one rubric grader
// weighted by their number; no assertion at all leaves the default judge (an empty list).
func TestV4Merge(t *testing.T) {
	t.Parallel()
	src := `assertions:
  - type: latency
    threshold: 10
tests:
  - id: both
    input: hi
    assertions:
      - type: cost
        budget: 1
      - one
      - type: token-usage
        max_total: 5
      - two
  - id: skip
    input: hi
    criteria: ok
    execution: {skip_defaults: true}
  - id: inherit
    input: hi
    criteria: ok
`
	dir := t.TempDir()
	path := filepath.Join(dir, "EVAL.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Load(path, LoadOptions{Cwd: dir})
	if len(s.Diagnostics) > 0 {
		t.Fatalf("diagnostics:\n%s", formatDiags(s.Diagnostics))
	}
	want := map[string]string{
		"both":    "cost:cost:1 rubrics:llm_judge:2 token-usage:token_usage:1 latency:latency:1",
		"skip":    "",
		"inherit": "latency:latency:1",
	}
	for _, c := range s.Cases {
		var got []string
		for _, e := range c.Evaluators {
			got = append(got, e.Name+":"+e.Type+":"+textfmt.JSNumber(e.Weight))
		}
		if g := strings.Join(got, " "); g != want[c.ID] {
			t.Errorf("%s: evaluators %q, want %q", c.ID, g, want[c.ID])
		}
	}
	if s.Dialect != Dialect4 {
		t.Errorf("dialect %q, want %q", s.Dialect, Dialect4)
	}
}

// TestExpandV4Names checks that directory expansion finds 4.x file names and leaves out the
// test files that a suite includes (a YAML list, JSONL named through file://).
func TestExpandV4Names(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"EVAL.yaml":       "tests: cases.yaml\n",
		"more.eval.yaml":  "tests:\n  - file://parts/*.jsonl\n",
		"parts/a.jsonl":   "{\"id\": \"p\", \"input\": \"hi\", \"criteria\": \"ok\"}\n",
		"smoke.eval.yaml": "tests:\n  - id: a\n    input: hi\n    criteria: ok\n",
		"cases.yaml":      "# included by EVAL.yaml\n- id: b\n  input: hi\n  criteria: ok\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, diags := Expand([]string{"."}, dir)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if want := []string{"EVAL.yaml", "more.eval.yaml", "smoke.eval.yaml"}; !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
}

// TestV4DatasetFromFileName checks the dataset of a 4.x suite without `name`: 4.42.4's suite
// name, the file name less `.eval.yaml` or `.yaml`, so its run directories match our cases.
func TestV4DatasetFromFileName(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, body, want string }{
		{"greet.eval.yaml", "tests:\n  - id: a\n    input: hi\n    criteria: ok\n", "greet"},
		{"greet.EVAL.yml", "tests:\n  - id: a\n    input: hi\n    criteria: ok\n", "greet"},
		{"EVAL.yaml", "tests:\n  - id: a\n    input: hi\n    criteria: ok\n", "EVAL"},
		{"plain.yaml", "tests:\n  - id: a\n    input: hi\n    criteria: ok\n", "plain"},
		{"named.eval.yaml", "name: mine\ntests:\n  - id: a\n    input: hi\n    criteria: ok\n", "mine"},
		// A 2.5 file keeps the contract's dataset, its base name.
		{"old.eval.yaml", "evalcases:\n  - id: a\n    input: hi\n    expected_outcome: ok\n", "old.eval"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, map[string]string{tt.file: tt.body}, tt.file)
			if s.Dataset != tt.want {
				t.Errorf("dataset = %q, want %q", s.Dataset, tt.want)
			}
		})
	}
}

// TestV4InputFilesReplaceSuite: a test's own input_files replaces the suite's (a null one does
// not count as its own), the suite's input comes first, skip_defaults drops both, and an empty
// list is an error at the list (4.42.4 skips that test as incomplete): loaders/
// shorthand-expansion.ts, resolveInputMessages, and yaml-parser.ts at tag v4.42.4.
func TestV4InputFilesReplaceSuite(t *testing.T) {
	t.Parallel()
	head := "input: Be brief.\ninput_files: [suite.txt]\ntests:\n  - id: a\n    input: q\n    criteria: ok\n"
	tests := []struct {
		name, test string
		files      []string // base names of the case's input files
		messages   int
		err        string // a fragment of the error, "" for none
	}{
		{name: "the suite's", files: []string{"suite.txt"}, messages: 2},
		{name: "its own replaces them", test: "    input_files: [own.txt, other.txt]\n", files: []string{"own.txt", "other.txt"}, messages: 2},
		{name: "null is not its own", test: "    input_files: null\n", files: []string{"suite.txt"}, messages: 2},
		{name: "skip_defaults", test: "    execution: {skip_defaults: true}\n", messages: 1},
		{name: "skip_defaults keeps its own", test: "    execution: {skip_defaults: true}\n    input_files: [own.txt]\n", files: []string{"own.txt"}, messages: 1},
		{name: "empty", test: "    input_files: []\n", err: `7:18: "input_files" is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, map[string]string{"eval.yaml": head + tt.test, "suite.txt": "s", "own.txt": "o", "other.txt": "x"}, "eval.yaml")
			if tt.err != "" {
				if diags := formatDiags(s.Diagnostics); !strings.Contains(diags, tt.err) || len(s.Cases) != 0 {
					t.Errorf("%d cases, diagnostics:\n%s\nwant an error %q and no case", len(s.Cases), diags, tt.err)
				}
				return
			}
			c := onlyCase(t, s)
			var got []string
			for _, f := range c.InputFiles {
				got = append(got, filepath.Base(f))
			}
			if !slices.Equal(got, tt.files) || len(c.Input) != tt.messages {
				t.Errorf("input files %q and %d messages, want %q and %d", got, len(c.Input), tt.files, tt.messages)
			}
		})
	}
}
