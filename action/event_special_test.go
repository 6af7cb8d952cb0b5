//go:build unix

package action

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// GITHUB_EVENT_PATH naming a FIFO is an error, not a wait for a writer that never comes.
func TestLoadEventFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "event.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := LoadEvent(envMap(map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": fifo}))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe (FIFO), not a regular file") {
			t.Errorf("LoadEvent error %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("LoadEvent blocked on a FIFO")
	}
}
