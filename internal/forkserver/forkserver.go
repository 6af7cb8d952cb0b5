// Package forkserver runs Python graders without starting an interpreter per call: one
// long-lived python server per (interpreter, environment) forks a fresh child for each call,
// which runs the script as `python script.py args…` would. Run returns what proc.Run would
// (the same Result fields and *proc.Error), and falls back to proc.Run for any call a server
// cannot take (another command, a missing script or directory, a server that will not start).
//
// Why descriptors over SCM_RIGHTS: the child's stdin, stdout and stderr are plain pipes that
// agentv created, exactly as for a spawned process, so output capping, EOF and a grandchild
// holding stdout open behave the same; nothing is named in the file system (no socket or
// FIFO path another user could race), and a dead server shows as EOF on the call's status
// pipe.
package forkserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agentv/action/internal/proc"
)

// Isolation values of --grader-isolation.
const (
	Process = "process" // spawn every grader process
	Fork    = "fork"    // Python scripts from a fork server
)

// enabled is the run-wide switch (SetIsolation). AGENTV_GRADER_ISOLATION=process turns it off
// for a whole process, tests included (.ci/run runs the grader tests both ways).
var enabled atomic.Bool

func init() { SetIsolation("") }

// EnvVar sets the default of --grader-isolation.
const EnvVar = "AGENTV_GRADER_ISOLATION"

// SetIsolation sets how Run starts Python graders for the whole process: Fork, Process, or ""
// for the default (AGENTV_GRADER_ISOLATION, else Fork).
func SetIsolation(mode string) {
	if mode == "" {
		mode = os.Getenv(EnvVar)
	}
	enabled.Store(mode != Process)
}

// Enabled reports whether Run may use a fork server.
func Enabled() bool { return enabled.Load() }

// Default is the pool Run uses. Its servers import json and re before forking: nearly every
// grader does, and a child then finds them loaded (about 2 ms of a 5 ms call, see
// docs/performance.md). Both are side-effect free, so a script cannot tell.
var Default = func() *Pool {
	p := NewPool(4)
	p.Preimport = []string{"json", "re"}
	return p
}()

// Run runs c like proc.Run, from a fork server when forking is enabled and c is a Python
// script (Eligible).
func Run(ctx context.Context, c proc.Cmd) (*proc.Result, error) {
	if !Enabled() || !supported || !Eligible(c.Argv) {
		return proc.Run(ctx, c)
	}
	return Default.Run(ctx, c)
}

// Eligible reports whether argv is a Python interpreter running a .py script with no
// interpreter options: [python3, script.py, args…]. Not `-c`, not a shell string.
func Eligible(argv []string) bool {
	if len(argv) < 2 {
		return false
	}
	base := filepath.Base(argv[0])
	if rest, ok := strings.CutPrefix(base, "python"); !ok || strings.Trim(rest, "0123456789.") != "" {
		return false
	}
	s := argv[1]
	return strings.HasSuffix(s, ".py") && !strings.HasPrefix(s, "-")
}

// scriptOK reports whether the script and the directory exist, so that the errors of a
// missing one come from a real spawn, word for word.
func scriptOK(c proc.Cmd) bool {
	if c.Dir != "" {
		if st, err := os.Stat(c.Dir); err != nil || !st.IsDir() {
			return false
		}
	}
	script := c.Argv[1]
	if !filepath.IsAbs(script) && c.Dir != "" {
		script = filepath.Join(c.Dir, script)
	}
	st, err := os.Stat(script)
	return err == nil && st.Mode().IsRegular()
}
