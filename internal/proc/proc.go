// Package proc runs user subprocesses (code judges, prompt templates, CLI targets): a timeout
// that kills the whole process group (on Windows only the process itself), output capped so a
// runaway child cannot exhaust memory, and errors that carry the command, exit status and a
// truncated stderr.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agentv/action/internal/textcap"
)

// DefaultMaxOutput caps captured stdout and stderr each (4 MiB); the rest is discarded.
const DefaultMaxOutput = 4 << 20

// stderrInError is how much of stderr an error message keeps (its tail).
const stderrInError = 2000

// waitDelay bounds how long Wait blocks for pipes after the child exits or is killed:
// a grandchild holding stdout open must not hang the run.
const waitDelay = 2 * time.Second

// Cmd describes one subprocess run.
type Cmd struct {
	Argv      []string
	Dir       string
	Env       []string // full environment; nil inherits the parent's
	Stdin     []byte
	Timeout   time.Duration // 0: no timeout beyond ctx
	MaxOutput int           // per stream; 0: DefaultMaxOutput
	// StdoutTee, when set, also gets stdout as it arrives (a live log). Its errors are
	// ignored: a log that cannot be written must not stop the child.
	StdoutTee io.Writer
}

// Result is what a finished subprocess produced.
type Result struct {
	Stdout, Stderr  []byte
	StdoutTruncated bool
	StderrTruncated bool
	ExitCode        int
	Duration        time.Duration
}

// ErrTimeout is matched (errors.Is) by the error of a run that hit its timeout.
var ErrTimeout = errors.New("timed out")

// Error is a failed run: it could not start, exited non-zero, timed out or was cancelled.
type Error struct {
	Argv     []string
	ExitCode int // -1 when the process did not exit normally
	Stderr   string
	TimedOut bool
	Timeout  time.Duration
	Err      error // underlying cause (start failure, context error), may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", commandName(e.Argv))
	switch {
	case e.TimedOut:
		fmt.Fprintf(&b, " timed out after %s", e.Timeout)
	case e.Err != nil && e.ExitCode < 0:
		fmt.Fprintf(&b, ": %v", e.Err)
	default:
		fmt.Fprintf(&b, " exited with code %d", e.ExitCode)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, ": %s", s)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrTimeout) true for timeouts.
func (e *Error) Is(target error) bool { return target == ErrTimeout && e.TimedOut }

func (e *Error) Unwrap() error { return e.Err }

func commandName(argv []string) string {
	if len(argv) == 0 {
		return "command"
	}
	if len(argv) >= 3 && (argv[0] == "sh" || argv[0] == "/bin/sh") && argv[1] == "-c" {
		return fmt.Sprintf("command %q", textcap.Middle(argv[2], 200))
	}
	// Its start and its end (the script's file name) say which command it was.
	return fmt.Sprintf("%q", textcap.Middle(strings.Join(argv, " "), 200))
}

// Run executes c and waits for it. A non-nil error is always an *Error, except when argv is empty.
// The Result is returned even on error, with whatever output was captured.
func Run(ctx context.Context, c Cmd) (*Result, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = DefaultMaxOutput
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	// Own process group, so a timeout kills the script and everything it started.
	startGroup(cmd)
	cmd.Cancel = func() error { // called only once the process started
		killGroup(cmd.Process)
		return nil
	}
	cmd.WaitDelay = waitDelay
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	stdout, stderr := NewCapped(c.MaxOutput), NewCapped(c.MaxOutput)
	cmd.Stdout = stdout
	if c.StdoutTee != nil {
		cmd.Stdout = io.MultiWriter(stdout, quietWriter{c.StdoutTee})
	}
	cmd.Stderr = stderr

	start := time.Now()
	err := cmd.Run()
	res := &Result{
		Stdout: stdout.Bytes(), Stderr: stderr.Bytes(),
		StdoutTruncated: stdout.Truncated(), StderrTruncated: stderr.Truncated(),
		ExitCode: -1, Duration: time.Since(start),
	}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	// Reap anything left in the group (a background grandchild) once the leader is gone.
	if cmd.Process != nil {
		killGroup(cmd.Process)
	}
	if err == nil {
		return res, nil
	}
	perr := ExitError(c.Argv, res.ExitCode, res.Stderr)
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && c.Timeout > 0:
		perr.TimedOut, perr.Timeout, perr.ExitCode = true, c.Timeout, -1
	case ctx.Err() != nil:
		perr.Err, perr.ExitCode = ctx.Err(), -1
	case errors.Is(err, exec.ErrWaitDelay) && res.ExitCode == 0:
		// The child exited 0 but a descendant kept its output open; the output we have is complete
		// enough to use.
		return res, nil
	default:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			perr.Err = err
		}
	}
	return res, perr
}

// Capped keeps the first max bytes written and discards the rest, never failing the writer
// (a failing pipe would make the child die of SIGPIPE and hide its real error). The fork
// server and the JavaScript workers capture a call's output with it too, so a caller cannot
// tell them from a spawned process. Safe for a writer and a reader at once.
type Capped struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped bool
}

// NewCapped keeps at most max bytes.
func NewCapped(max int) *Capped { return &Capped{max: max} }

func (c *Capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := max(c.max-c.buf.Len(), 0)
	c.buf.Write(p[:min(room, len(p))])
	c.dropped = c.dropped || len(p) > room
	return len(p), nil
}

// Bytes is a copy of what was kept.
func (c *Capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// Len is how many bytes were kept.
func (c *Capped) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Len()
}

// Truncated reports whether anything was discarded.
func (c *Capped) Truncated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// ExitError is the error Run returns for a process that exited with code: its argv and the
// tail of its stderr.
func ExitError(argv []string, code int, stderr []byte) *Error {
	return &Error{Argv: argv, ExitCode: code, Stderr: tail(string(stderr), stderrInError)}
}

// quietWriter hides its writer's errors, so io.MultiWriter goes on to the next write.
type quietWriter struct{ w io.Writer }

func (q quietWriter) Write(p []byte) (int, error) {
	_, _ = q.w.Write(p)
	return len(p), nil
}

// tail keeps the last n bytes of s, marking the cut.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…(truncated)… " + s[len(s)-n:]
}

// Excerpt returns s trimmed for an error message: at most n characters (at least
// textcap.MinKeep), its start and end kept when cut, since what went wrong is often at the
// end (see textcap.Middle).
func Excerpt(s string, n int) string {
	return textcap.Middle(strings.TrimSpace(s), n)
}
