package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// WalkDown visits what exists from below base down to rel, stops quietly where the path no
// longer exists, and stops with the visitor's error.
func TestWalkDown(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.TempDir(), filepath.Join(base, "a", "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	stop := errors.New("a link")
	for _, tt := range []struct {
		name, rel string
		want      []string
		err       error
	}{
		{"the base itself", ".", nil, nil},
		{"down to an existing folder", filepath.Join("a", "b"), []string{"a", filepath.Join("a", "b")}, nil},
		{"stops where the path ends", filepath.Join("a", "b", "c", "d"), []string{"a", filepath.Join("a", "b")}, nil},
		{"a link is seen, not followed", filepath.Join("a", "link", "x"), []string{"a", filepath.Join("a", "link")}, stop},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var seen []string
			err := WalkDown(base, tt.rel, func(p string, fi fs.FileInfo) error {
				rel, _ := filepath.Rel(base, p)
				seen = append(seen, rel)
				if fi.Mode()&fs.ModeSymlink != 0 {
					return stop
				}
				return nil
			})
			if !errors.Is(err, tt.err) || !slices.Equal(seen, tt.want) {
				t.Errorf("visited %v, error %v; want %v, %v", seen, err, tt.want, tt.err)
			}
		})
	}
}
