//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noHang runs f and fails the test when it has not returned after a generous wait: the
// files under test used to block forever.
func noHang(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("blocked: the call did not return")
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	regular := write("regular.txt", "hello")
	exact := write("exact.txt", strings.Repeat("x", 16))
	over := write("over.txt", strings.Repeat("x", 17))
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	link := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	goodLink := filepath.Join(dir, "good-link")
	if err := os.Symlink(regular, goodLink); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr func(error) bool
		wantMsg []string
	}{
		{name: "regular file", path: regular, want: "hello"},
		{name: "symlink to a regular file", path: goodLink, want: "hello"},
		{name: "exactly at the cap", path: exact, want: strings.Repeat("x", 16)},
		{name: "over the cap", path: over, wantErr: isTooLarge, wantMsg: []string{over, "16 bytes limit"}},
		{name: "fifo", path: fifo, wantErr: isNotRegular, wantMsg: []string{fifo, "named pipe (FIFO)"}},
		{name: "directory", path: dir, wantErr: isNotRegular, wantMsg: []string{dir, "is a directory"}},
		{name: "character device", path: "/dev/null", wantErr: isNotRegular, wantMsg: []string{"/dev/null is a character device"}},
		{name: "symlink to /dev/zero", path: link, wantErr: isNotRegular, wantMsg: []string{link, "symbolic link to /dev/zero", "character device"}},
		{name: "missing", path: filepath.Join(dir, "nope"), wantErr: isNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []byte
			var err error
			noHang(t, func() { got, err = ReadFile(tt.path, 16) })
			if tt.wantErr == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("ReadFile = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !tt.wantErr(err) {
				t.Fatalf("ReadFile error = %v (%T), not of the kind wanted", err, err)
			}
			for _, w := range tt.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// The kinds of error ReadFile returns.
func isTooLarge(err error) bool {
	var e *TooLargeError
	return errors.As(err, &e)
}

func isNotRegular(err error) bool {
	var e *NotRegularError
	return errors.As(err, &e)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// A path that is a FIFO when opened (it may have been swapped in after the Stat check) does
// not block the open, and the check on the open descriptor refuses it.
func TestOpenNoBlockOnFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	mkfifo(t, fifo)
	noHang(t, func() {
		f, err := openNoBlock(fifo)
		if err != nil {
			t.Errorf("openNoBlock: %v", err)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("stat of the open FIFO: %v, %v", fi, err)
		}
	})
}

// A regular file opened by Open reads as usual (the non-blocking flag is cleared).
func TestOpenReadsRegularFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "f")
	content := strings.Repeat("line\n", 100000)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadAll(f, p, LimitContent)
	if err != nil || string(got) != content {
		t.Fatalf("ReadAll: %d bytes, %v", len(got), err)
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{8 << 20: "8 MiB", 512 << 10: "512 KiB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
