//go:build unix

package providers

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/internal/proc"
)

// cliProcessGone reports whether pid no longer runs (an unreaped zombie counts as gone).
func cliProcessGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// TestCLITimeoutKillsProcessGroup: the command's own timeout and the caller's deadline both
// stop the whole group (a background child included) and read as timeouts.
func TestCLITimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings map[string]any
		opts     Options
		ctx      func(context.Context) (context.Context, context.CancelFunc)
	}{
		{"timeout_seconds", map[string]any{"timeout_seconds": 0.3}, Options{Timeout: time.Minute}, context.WithCancel},
		{"options timeout", nil, Options{Timeout: 300 * time.Millisecond}, context.WithCancel},
		{"caller deadline", nil, Options{}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 300*time.Millisecond)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			settings := map[string]any{"command_template": "sleep 100 & echo $! > ./child.pid; wait"}
			for k, v := range tc.settings {
				settings[k] = v
			}
			p := cliTestNew(t, dir, settings, tc.opts)
			ctx, cancel := tc.ctx(t.Context())
			defer cancel()
			_, err := p.Invoke(ctx, &Request{})
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, proc.ErrTimeout) || !strings.Contains(err.Error(), "timed out") {
				t.Fatalf("want a timeout error, got %v", err)
			}
			raw, rerr := os.ReadFile(filepath.Join(dir, "child.pid"))
			pid, perr := strconv.Atoi(strings.TrimSpace(string(raw)))
			if rerr != nil || perr != nil {
				t.Fatalf("child pid: %v %v", rerr, perr)
			}
			// The kill is synchronous; allow the kernel a moment to reap.
			for i := 0; i < 100 && !cliProcessGone(pid); i++ {
				time.Sleep(20 * time.Millisecond)
			}
			if !cliProcessGone(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("background child %d survived the timeout", pid)
			}
		})
	}
}
