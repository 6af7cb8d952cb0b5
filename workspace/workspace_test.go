package workspace

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCreate makes workspaces from a template with a before_all hook run as a real
// subprocess: the template is copied without .git, the hook sees the workspace on stdin and
// in {{workspace_path}}, runs in the eval file's directory unless its cwd says otherwise, and
// a hook that fails or overruns its timeout leaves no workspace behind.
func TestCreate(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the hooks are sh scripts")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	root := t.TempDir()
	tpl := filepath.Join(root, "tpl")
	writeFile(t, filepath.Join(tpl, "seed.txt"), "seed")
	writeFile(t, filepath.Join(tpl, "sub", "deep.txt"), "deep")
	writeFile(t, filepath.Join(tpl, ".git", "HEAD"), "ref")
	if err := os.Symlink("seed.txt", filepath.Join(tpl, "link")); err != nil {
		t.Fatal(err)
	}
	evalDir := filepath.Join(root, "evals")
	writeFile(t, filepath.Join(evalDir, "marker"), "")
	// The hook records its stdin, its argument and its working directory in the workspace.
	record := `cat > "$1/stdin.json"; printf '%s' "$PWD" > "$1/cwd.txt"; printf '%s' "$1" > "$1/arg.txt"`
	tests := []struct {
		name    string
		ws      *suite.Workspace
		wantErr string
		check   func(t *testing.T, dir string)
	}{
		{name: "template and hook", ws: &suite.Workspace{Template: tpl, BeforeAll: &suite.Hook{Command: []string{"sh", "-c", record, "hook", "{{workspace_path}}"}}},
			check: func(t *testing.T, dir string) {
				for f, want := range map[string]string{"seed.txt": "seed", "sub/deep.txt": "deep", "link": "seed", "arg.txt": dir, "cwd.txt": evalDir} {
					if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != want {
						t.Errorf("%s = %q (%v), want %q", f, b, err, want)
					}
				}
				// The workspace's own .git is agentv's baseline for file_changes, not the template's.
				if b, err := os.ReadFile(filepath.Join(dir, ".git", "HEAD")); err == nil && string(b) == "ref" {
					t.Errorf("the template's .git was copied")
				}
				var ctx map[string]any
				b, _ := os.ReadFile(filepath.Join(dir, "stdin.json"))
				if err := json.Unmarshal(b, &ctx); err != nil || ctx["workspace_path"] != dir || ctx["test_id"] != "__before_all__" ||
					ctx["eval_run_id"] != "run-1" || ctx["case_input"] != nil {
					t.Errorf("hook stdin %s (%v)", b, err)
				}
			}},
		{name: "hook cwd", ws: &suite.Workspace{BeforeAll: &suite.Hook{Command: []string{"sh", "-c", record, "hook", "{{workspace_path}}"}, Cwd: tpl}},
			check: func(t *testing.T, dir string) {
				if b, _ := os.ReadFile(filepath.Join(dir, "cwd.txt")); string(b) != tpl {
					t.Errorf("hook ran in %q, want %q", b, tpl)
				}
				if _, err := os.Stat(filepath.Join(dir, "seed.txt")); !os.IsNotExist(err) {
					t.Errorf("no template, but seed.txt is there (%v)", err)
				}
			}},
		{name: "failing hook", ws: &suite.Workspace{Template: tpl, BeforeAll: &suite.Hook{Command: []string{"sh", "-c", `echo "no database" >&2; exit 3`}}},
			wantErr: `workspace before_all hook failed: command "echo \"no database\" >&2; exit 3" exited with code 3: no database`},
		{name: "hook timeout", ws: &suite.Workspace{BeforeAll: &suite.Hook{Command: []string{"sh", "-c", "sleep 5"}, Timeout: 100 * time.Millisecond}},
			wantErr: "timed out after 100ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parent := t.TempDir()
			dir, err := Create(t.Context(), tt.ws, evalDir, Options{RunID: "run-1", Env: os.Environ(), Root: parent})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if left, _ := os.ReadDir(parent); dir != "" || len(left) > 0 {
					t.Errorf("a failed workspace was left behind: %q %v", dir, left)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, dir)
			if err := Remove(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("Remove left %s (%v)", dir, err)
			}
		})
	}
}

// TestRemoveOnlyWorkspaces checks that Remove deletes nothing but a workspace.
func TestRemoveOnlyWorkspaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("Remove deleted a directory that is not a workspace: %v", err)
	}
}
