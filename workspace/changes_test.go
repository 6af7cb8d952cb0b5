package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentv/action/suite"
)

// TestFileChanges: a workspace made from a template diffs against the template as copied (and
// as before_all left it), as AgentV 4.42.4's file_changes does; the expected diff is the one
// 4.42.4 gave a code grader when a cli target appended to a.txt and wrote b.txt.
func TestFileChanges(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	tpl := filepath.Join(t.TempDir(), "tpl")
	writeFile(t, filepath.Join(tpl, "a.txt"), "original\n")
	dir, err := Create(t.Context(), &suite.Workspace{Template: tpl}, tpl, Options{Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Remove(dir) })
	if got := FileChanges(t.Context(), dir); got != "" {
		t.Errorf("an untouched workspace has changes: %q", got)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "original\nchanged\n")
	writeFile(t, filepath.Join(dir, "b.txt"), "new\n")
	want := "diff --git a/a.txt b/a.txt\nindex 4b48dee..27530da 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n original\n+changed\n" +
		"diff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000000..3e75765\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new"
	if got := FileChanges(t.Context(), dir); got != want {
		t.Errorf("file changes:\n%s\nwant (4.42.4):\n%s", got, want)
	}
	// A GIT_DIR set for agentv itself (a hook, CI) does not redirect the diff.
	env := append(os.Environ(), "GIT_DIR="+t.TempDir(), "GIT_WORK_TREE="+t.TempDir())
	if got := fileChanges(t.Context(), dir, env); got != want {
		t.Errorf("with GIT_DIR set: %q", got)
	}
	// Not a workspace with a baseline: nothing, never an error.
	if got := FileChanges(t.Context(), t.TempDir()); got != "" {
		t.Errorf("a folder without a baseline: %q", got)
	}
	if got := FileChanges(t.Context(), ""); got != "" {
		t.Errorf("no workspace: %q", got)
	}
}
