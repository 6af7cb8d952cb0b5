package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestV4IncludeErrors: a template that cannot be used fails the test that includes it, with the
// error at its place in the template file (or at the include when the file is missing).
func TestV4IncludeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  string // a substring of the diagnostics
	}{
		{"too deep", map[string]string{
			"d1.yaml": "assertions:\n  - include: ./d2.yaml\n",
			"d2.yaml": "assertions:\n  - include: ./d3.yaml\n",
			"d3.yaml": "assertions:\n  - include: ./d4.yaml\n",
			"d4.yaml": "assertions:\n  - type: contains\n    value: x\n"},
			"d3.yaml:2:14: assertion templates include each other more than 3 deep: d1.yaml -> d2.yaml -> d3.yaml -> ./d4.yaml"},
		{"bad assertion in a template", map[string]string{
			"d1.yaml": "assertions:\n  - Is polite\n  - type: telepathy\n"},
			`d1.yaml:3:11: unknown evaluator type "telepathy"`},
		{"not a mapping", map[string]string{"d1.yaml": "- type: contains\n  value: x\n"},
			`s.eval.yaml:6:18: assertion template d1.yaml must be a mapping with an "assertions" list`},
		{"no assertions", map[string]string{"d1.yaml": "name: x\nasserts: []\n"},
			`d1.yaml:2:1: unknown key "asserts" in an assertion template`},
		{"bad yaml", map[string]string{"d1.yaml": "assertions: [\n"},
			"d1.yaml:2:1: invalid YAML"},
		{"a file name where a template name goes", map[string]string{
			"d1.yaml": "assertions:\n  - include: d2.yaml\n", "d2.yaml": "assertions: []\n"},
			`d1.yaml:2:14: assertion template "d2.yaml" not found (looked for .agentv/templates/d2.yaml.yaml, .agentv/templates/d2.yaml.yml); a name without "/" or a leading "." names .agentv/templates/NAME.yaml: write "./d2.yaml" for that file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.files["s.eval.yaml"] = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    assertions:\n      - include: ./d1.yaml\n  - id: b\n    input: hi\n    criteria: ok\n"
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := Load(filepath.Join(dir, "s.eval.yaml"), LoadOptions{Cwd: dir})
			diags := formatDiags(s.Diagnostics)
			if !strings.Contains(diags, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant one containing %q", diags, tt.want)
			}
			if len(s.Cases) != 1 || s.Cases[0].ID != "b" {
				t.Errorf("cases %v, want only b (a is not loaded)", s.Cases)
			}
		})
	}
}
