package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		link     bool  // dest is a symbolic link to another file
		writeErr error // the writer fails
		want     string
	}{
		{name: "replaces the previous file", want: "new"},
		{name: "a failed write keeps the previous file", writeErr: errors.New("disk full"), want: "old"},
		{name: "a link is replaced, its target left alone", link: true, want: "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dest, other := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "other")
			if err := os.WriteFile(other, []byte("other"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.link {
				if err := os.Symlink(other, dest); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(dest, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := WriteFile(dest, func(w io.Writer) error {
				if _, err := io.WriteString(w, "new"); err != nil {
					return err
				}
				return tt.writeErr
			})
			if !errors.Is(err, tt.writeErr) {
				t.Errorf("err = %v, want %v", err, tt.writeErr)
			}
			if b, _ := os.ReadFile(dest); string(b) != tt.want {
				t.Errorf("dest = %q, want %q", b, tt.want)
			}
			if b, _ := os.ReadFile(other); string(b) != "other" {
				t.Errorf("link target = %q, want it untouched", b)
			}
			if fi, err := os.Lstat(dest); err == nil && tt.writeErr == nil && fi.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", fi.Mode().Perm())
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "*"+Suffix)); len(m) > 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}

// Until it is committed the file is written under a temporary name; Abort drops it, and
// Abort after Commit does nothing (so it can be deferred).
func TestCommitAbort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dest := filepath.Join(dir, "r.jsonl")
	f, err := Create(dest)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(f.Name()) != dir || filepath.Ext(f.Name()) != Suffix {
		t.Errorf("temporary file %s, want one ending %s in %s", f.Name(), Suffix, dir)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("dest exists before commit: %v", err)
	}
	if _, err := f.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if b, _ := os.ReadFile(dest); string(b) != "x" {
		t.Errorf("dest = %q after commit and abort", b)
	}
	if err := f.Commit(); err == nil {
		t.Error("second commit: no error")
	}
	g, err := Create(dest)
	if err != nil {
		t.Fatal(err)
	}
	g.Abort()
	if _, err := os.Stat(g.Name()); !os.IsNotExist(err) {
		t.Errorf("aborted file still there: %v", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "x" {
		t.Errorf("abort changed dest: %q", b)
	}
}
