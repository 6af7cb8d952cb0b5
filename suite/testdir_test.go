package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTestsDirectory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		ids   string
		diags []string
	}{
		{name: "ids from directories, sorted", files: map[string]string{
			"cases/b/case.yml":  "input: hi\ncriteria: ok\n",
			"cases/a/case.yaml": "input: hi\ncriteria: ok\n",
			"cases/c/case.yaml": "id: own\ninput: hi\ncriteria: ok\n",
			"cases/.hidden/x":   "",
		}, ids: "a b own"},
		{name: "case.yaml wins over case.yml", files: map[string]string{
			"cases/a/case.yaml": "input: hi\ncriteria: ok\n",
			"cases/a/case.yml":  "input: [not, a, mapping\n",
		}, ids: "a"},
		{name: "problems", files: map[string]string{
			"cases/list/case.yaml":     "- input: hi\n",
			"cases/noinput/case.yaml":  "criteria: ok\n",
			"cases/nocase/readme.md":   "",
			"cases/ws/case.yaml":       "input: hi\ncriteria: ok\n",
			"cases/ws/workspace/x.txt": "",
		}, ids: "ws", diags: []string{
			`eval.yaml:1:8: test directory "cases/nocase" skipped: it has no case.yaml [warning missing-file]`,
			`cases/list/case.yaml:1:1: a case file must be a mapping with the test's input and assertions, got a list (case "list" not loaded) [error structure]`,
			`cases/noinput/case.yaml:1:1: test has no "input" (case "noinput" not loaded) [error case case=noinput]`,
			`cases/ws/case.yaml:1:1: the test's workspace/ directory is not supported yet (ignored) [warning ignored-key case=ws]`,
		}},
		{name: "empty directory", files: map[string]string{"cases/x.txt": ""}, diags: []string{
			`eval.yaml:1:8: test directory "cases" has no test subdirectories (each holds a case.yaml) [warning structure]`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.files["eval.yaml"] = "tests: cases\n"
			s := loadTree(t, tt.files, "eval.yaml")
			var ids []string
			for _, c := range s.Cases {
				ids = append(ids, c.ID)
			}
			if got := strings.Join(ids, " "); got != tt.ids {
				t.Errorf("ids %q, want %q\n%s", got, tt.ids, formatDiags(s.Diagnostics))
			}
			all := formatDiags(s.Diagnostics)
			for _, d := range tt.diags {
				if !strings.Contains(all, d) {
					t.Errorf("diagnostics lack %q:\n%s", d, all)
				}
			}
			if len(tt.diags) == 0 && all != "" {
				t.Errorf("unexpected diagnostics:\n%s", all)
			}
		})
	}
}

// A test directory is walked one level, without following links: a subdirectory that is a
// symbolic link (to a folder outside the tree, or a loop) is not a test.
func TestTestsDirectoryLinks(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"eval.yaml":         "tests: cases\n",
		"cases/a/case.yaml": "input: hi\ncriteria: ok\n",
		"outside/case.yaml": "input: hi\ncriteria: ok\n",
		"cases/.keep":       "",
	})
	for link, to := range map[string]string{"cases/out": "outside", "cases/loop": "cases"} {
		if err := os.Symlink(filepath.Join(root, to), filepath.Join(root, link)); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
	}
	s := Load(filepath.Join(root, "eval.yaml"), LoadOptions{Cwd: root})
	var ids []string
	for _, c := range s.Cases {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, " "); got != "a" {
		t.Errorf("ids %q, want a\n%s", got, formatDiags(s.Diagnostics))
	}
}
