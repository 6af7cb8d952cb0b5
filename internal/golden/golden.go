// Package golden compares test output with files checked into testdata/. Run a package's
// tests with -update to rewrite its golden files from what the code produces now, then
// review the diff.
//
// Import it from _test.go files only: it registers the -update flag.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/ with the current output")

// Check compares got with the file at path, or with -update writes got to path (creating its
// directory). A missing file fails the test with a hint to run -update.
func Check[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	check(t, path, []byte(got), *update)
}

func check(t testing.TB, path string, got []byte, rewrite bool) {
	t.Helper()
	if rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (run go test with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the output (-want +got), run go test with -update if the change is intended:\n%s", path, diff)
	}
}
