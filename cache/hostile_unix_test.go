//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/providers"
)

// A FIFO planted where an entry belongs would block a plain open forever: it is a miss.
func TestFIFOEntryIsAMiss(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newCounter(t)
	s := Open(Options{Dir: dir, Mode: ReadWrite})
	entry := entryPath(t, s, c, "q")
	must(t, os.MkdirAll(filepath.Dir(entry), 0o755))
	must(t, syscall.Mkfifo(entry, 0o644))
	p := wrap(t, s, c)
	done := make(chan *providers.Response, 1)
	go func() {
		resp, _ := p.Invoke(accepting(), &providers.Request{EvalID: "c1", Question: "q"})
		done <- resp
	}()
	select {
	case resp := <-done:
		if resp == nil || resp.Text != "answer to q" || c.calls.Load() != 1 {
			t.Errorf("calls = %d, answer %q", c.calls.Load(), resp.Text)
		}
	case <-time.After(30 * time.Second):
		// Not a speed check: a blocked open never returns. Unblock it so the test ends.
		if f, err := os.OpenFile(entry, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("reading a FIFO entry blocked")
	}
}

// Attachments are hashed into the key: a FIFO among them (eval files name them) must not
// block the run, as a device must not make the hash read forever.
func TestKeyOfSpecialAttachments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	must(t, syscall.Mkfifo(fifo, 0o644))
	tg := loadTarget(t, openaiTarget, nil)
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan string, 1)
		go func() {
			k, _ := Key(tg, &providers.Request{EvalID: "c1", Question: "q", Files: []string{path}}, 0)
			done <- k
		}()
		select {
		case k := <-done:
			if len(k) != 64 {
				t.Errorf("%s: key %q", path, k)
			}
		case <-time.After(30 * time.Second):
			// Not a speed check: a blocked open or an endless read never returns.
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatalf("hashing %s did not end", path)
		}
	}
}
