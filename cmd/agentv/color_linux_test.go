package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair: what is written to tty is read from pty.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		pty.Close()
		t.Skipf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		pty.Close()
		t.Skipf("pty number: %v", e)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		pty.Close()
		t.Skipf("open tty: %v", err)
	}
	return pty, tty
}

// TestNoColor checks that output to a terminal is colored unless NO_COLOR is set.
func TestNoColor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("tests: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		noColor   string
		wantColor bool
	}{{"", true}, {"1", false}} {
		pty, tty := openPTY(t)
		got := make(chan string)
		go func() {
			var b bytes.Buffer
			_, _ = io.Copy(&b, pty) // ends with EIO once the tty is closed
			got <- b.String()
		}()
		var stderr strings.Builder
		c := &Command{Stdout: tty, Stderr: &stderr, Cwd: dir, Getenv: func(k string) string {
			if k == "NO_COLOR" {
				return tt.noColor
			}
			return ""
		}}
		code := c.Main(t.Context(), []string{"validate", "bad.yaml"})
		tty.Close()
		out := <-got
		pty.Close()
		if code == 0 {
			t.Fatalf("validate of a bad file: exit 0\n%s", out)
		}
		if has := strings.Contains(out, "\x1b["); has != tt.wantColor {
			t.Errorf("NO_COLOR=%q: colored = %v, want %v:\n%q", tt.noColor, has, tt.wantColor, out)
		}
	}
}
