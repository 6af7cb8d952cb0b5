package e2e_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests use only what the repository holds: a clone from GitHub has no sibling `shared`
// folder, so a test that read one would pass only on the machine it was written on (and skip,
// silently, anywhere else).
func TestTestsNeedNothingOutsideTheRepo(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	// Spelled in pieces so that this file does not match itself.
	forbidden := []string{"../" + "shared/", "/work/" + "shared"}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, f := range forbidden {
			if strings.Contains(string(src), f) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s refers to %q: keep what tests need in the repository", rel, f)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
