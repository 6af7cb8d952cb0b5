package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps failures instead of failing the real test.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

type fatalStop struct{}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.fatal = true
	panic(fatalStop{})
}

func run(path, got string, rewrite bool) (r *recorder) {
	r = &recorder{}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(fatalStop); !ok {
				panic(v)
			}
		}
	}()
	check(r, path, []byte(got), rewrite)
	return r
}

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	same := filepath.Join(dir, "same.golden")
	if err := os.WriteFile(same, []byte("line 1\nline 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		path, got string
		wantErr   string // "" for a pass
		wantFatal bool
	}{
		{name: "equal", path: same, got: "line 1\nline 2\n"},
		{name: "different", path: same, got: "line 1\nline two\n", wantErr: "-update if the change is intended"},
		{name: "missing file", path: filepath.Join(dir, "none.golden"), got: "x", wantErr: "run go test with -update to create it", wantFatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := run(tt.path, tt.got, false)
			switch {
			case tt.wantErr == "" && len(r.errs) > 0:
				t.Errorf("unexpected failure: %q", r.errs)
			case tt.wantErr != "" && (len(r.errs) != 1 || !strings.Contains(r.errs[0], tt.wantErr)):
				t.Errorf("failures %q, want one containing %q", r.errs, tt.wantErr)
			case r.fatal != tt.wantFatal:
				t.Errorf("fatal = %v, want %v", r.fatal, tt.wantFatal)
			}
		})
	}
}

// With -update, Check writes the output (creating its directory), and the next comparison
// passes.
func TestCheckUpdate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "new.golden")
	if r := run(path, "fresh\n", true); len(r.errs) > 0 {
		t.Fatalf("update failed: %q", r.errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "fresh\n" {
		t.Fatalf("file = %q, %v; want the output", b, err)
	}
	if r := run(path, "fresh\n", false); len(r.errs) > 0 {
		t.Errorf("compare after update: %q", r.errs)
	}
}
