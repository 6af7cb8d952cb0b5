//go:build unix

package results

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A results file given to `report` that is a FIFO or a device is refused at once: opening a
// FIFO no one writes to used to block forever, and /dev/zero never ends.
func TestReadSpecialFiles(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "results.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
		read             func(string) error
	}{
		{"ScanFile fifo", fifo, "named pipe (FIFO), not a regular file", func(p string) error { return ScanFile(p, func(*Record) error { return nil }) }},
		{"ScanFile device", "/dev/zero", "/dev/zero is a character device", func(p string) error { return ScanFile(p, func(*Record) error { return nil }) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			done := make(chan error, 1)
			go func() { done <- tt.read(tt.path) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %v, want one containing %q", err, tt.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("blocked on a special file")
			}
		})
	}
}
