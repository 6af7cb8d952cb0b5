//go:build unix

package suite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Walking and globbing do not follow links to directories: a link back up the tree used to
// run the same case once per level of the loop (41 times for `evals/sub/up -> ..`), and a
// link to / walked the machine. A file reached by two paths runs once.
func TestExpandSymlinks(t *testing.T) {
	t.Parallel()
	outside := writeTree(t, map[string]string{"far.yaml": "", "deep/far2.yaml": ""})
	root := writeTree(t, map[string]string{
		"evals/a.yaml":     "",
		"evals/sub/b.yaml": "",
		"named/c.yaml":     "",
	})
	links := map[string]string{
		"evals/sub/up":    "..",       // a loop
		"evals/ext":       outside,    // a directory outside the tree
		"evals/root":      "/",        // the whole filesystem
		"evals/alias.yml": "a.yaml",   // the same file under a second name
		"evals/named":     "../named", // a directory inside the tree, by a second path
		"linked-evals":    "evals",    // named directly in a pattern: followed
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		patterns []string
		want     []string
	}{
		{"double star", []string{"evals/**/*.yaml"}, []string{"evals/a.yaml", "evals/sub/b.yaml"}},
		{"double star, any extension", []string{"evals/**/*.y*ml"}, []string{"evals/a.yaml", "evals/sub/b.yaml"}},
		{"star", []string{"evals/*"}, []string{"evals/a.yaml"}},
		{"directory walk", []string{"evals"}, []string{"evals/a.yaml", "evals/sub/b.yaml"}},
		{"link named in the pattern is followed", []string{"linked-evals/**/*.yaml"}, []string{"linked-evals/a.yaml", "linked-evals/sub/b.yaml"}},
		{"same file by two paths runs once", []string{"evals/a.yaml", "evals/alias.yml", "linked-evals/a.yaml"}, []string{"evals/a.yaml"}},
		{"same directory by two patterns runs once", []string{"named", "evals/named/*.yaml"}, []string{"named/c.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, diags := Expand(tt.patterns, root)
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}
