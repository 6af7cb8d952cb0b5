package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/suitegen"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"evals/a.yaml":                   "",
		"evals/b.yml":                    "",
		"evals/sub/c.yaml":               "",
		"evals/data.jsonl":               "",
		"evals/data.yaml":                "", // sidecar of data.jsonl
		"evals/targets.yaml":             "",
		"evals/.agentv/targets.yaml":     "",
		"evals/.agentv/config.yaml":      "",
		"evals/.agentv.yaml":             "",
		"evals/.hidden/d.yaml":           "",
		"evals/node_modules/pkg/e.yaml":  "",
		"evals/readme.md":                "",
		"evals/notes.json":               "",
		"skills/a/evals.json":            "",
		"skills/b/evals.json":            "",
		"skills/b/package.json":          "",
		"skills/c/data.json":             "",
		"other/x.yaml":                   "",
		"other/deep/er/y.yaml":           "",
		"other/deep/er/y.jsonl.bak":      "",
		"other/deep/.secret/z.yaml":      "",
		"other/deep/node_modules/n.yaml": "",
	})
	tests := []struct {
		name     string
		patterns []string
		want     []string
		errs     []string
	}{
		{"file", []string{"evals/a.yaml"}, []string{"evals/a.yaml"}, nil},
		{"directory skips config, sidecars, hidden and node_modules", []string{"evals"},
			[]string{"evals/a.yaml", "evals/b.yml", "evals/data.jsonl", "evals/sub/c.yaml"}, nil},
		{"glob", []string{"other/**/*.yaml"}, []string{"other/deep/er/y.yaml", "other/x.yaml"}, nil},
		{"star within one directory", []string{"evals/*.yaml"}, []string{"evals/a.yaml"}, nil},
		{"dedupe and sort across arguments", []string{"other/x.yaml", "evals/a.yaml", "./other/x.yaml", "other/*.yaml"},
			[]string{"evals/a.yaml", "other/x.yaml"}, nil},
		{"absolute path stays relative to cwd", []string{filepath.Join(root, "evals/b.yml")}, []string{"evals/b.yml"}, nil},
		{"explicit hidden file is kept", []string{"evals/.hidden/d.yaml"}, []string{"evals/.hidden/d.yaml"}, nil},
		{"no match is an error naming the pattern", []string{"evals/*.yaml", "nothing/**/*.yaml"}, []string{"evals/a.yaml"},
			[]string{`no eval files matched "nothing/**/*.yaml"`}},
		{"unsupported extension", []string{"evals/readme.md"}, nil, []string{`unsupported file format ".md"`}},
		// Agent Skills evals.json: named, or globbed by name or by a pattern ending in .json;
		// walking a directory picks none, as AgentV 4.x does.
		{"named json file", []string{"evals/notes.json"}, []string{"evals/notes.json"}, nil},
		{"glob picks evals.json only", []string{"skills/**"}, []string{"skills/a/evals.json", "skills/b/evals.json"}, nil},
		{"glob ending in .json picks any json", []string{"skills/*/*.json"},
			[]string{"skills/a/evals.json", "skills/b/evals.json", "skills/b/package.json", "skills/c/data.json"}, nil},
		{"directory walk picks no json", []string{"skills"}, nil,
			[]string{`no eval files (.yaml, .yml, .jsonl) found in directory "skills"; Agent Skills evals.json files run when named or matched by a glob such as "skills/**/evals.json"`}},
		{"bad pattern", []string{"evals/[.yaml"}, nil, []string{`invalid pattern "evals/[.yaml"`}},
		{"no arguments", nil, nil, []string{"no eval paths given"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, diags := Expand(tt.patterns, root)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			var errs []string
			for _, d := range diags {
				if !d.IsError() {
					t.Errorf("Expand diagnostics are errors: %v", d)
				}
				errs = append(errs, d.Message)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %q, want %q", errs, tt.errs)
			}
			for i := range errs {
				if !strings.Contains(errs[i], tt.errs[i]) {
					t.Errorf("error %q does not contain %q", errs[i], tt.errs[i])
				}
			}
		})
	}
}

func TestExpandOutsideCwd(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{"evals/a.yaml": "", "cwd/.keep": ""})
	got, diags := Expand([]string{"../evals"}, filepath.Join(root, "cwd"))
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	if diff := cmp.Diff([]string{filepath.Join(root, "evals/a.yaml")}, got); diff != "" {
		t.Errorf("paths outside cwd are absolute (-want +got):\n%s", diff)
	}
}

// TestGeneratedSuites loads the repository generator's suites (every mode) and requires them
// to load without errors or warnings.
func TestGeneratedSuites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, mode := range suitegen.Modes {
		if _, err := suitegen.Write(dir, mode, 3); err != nil {
			t.Fatal(err)
		}
	}
	files, diags := Expand([]string{dir}, dir)
	if len(diags) != 0 || len(files) != len(suitegen.Modes) {
		t.Fatalf("expand: %v %v", files, diags)
	}
	for _, f := range files {
		if strings.Contains(f, "v4-") {
			continue // its 4.x assertion types register from package evaluators: test/e2e/gen_test.go loads it
		}
		s := Load(f, LoadOptions{Cwd: dir})
		if len(s.Diagnostics) != 0 || len(s.Cases) != 3 || s.Target != "mock" {
			t.Errorf("%s: %d cases, target %q:\n%s", f, len(s.Cases), s.Target, formatDiags(s.Diagnostics))
		}
		for _, c := range s.Cases {
			if len(c.Input) != 2 || c.ReferenceAnswer == "" || c.ExpectedOutcome == "" {
				t.Errorf("%s %s: incomplete case", f, c.ID)
			}
		}
	}
}
