package forkserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentv/action/internal/proc"
)

// errServerLost is the cause of a call whose server died while the child ran: its exit status
// is unknown.
var errServerLost = errors.New("the Python fork server exited during the call")

// wait feeds the child's stdin, captures its output and waits for its wait status, killing
// its process group on timeout or cancellation, as proc.Run does for a spawned process.
func wait(ctx context.Context, c proc.Cmd, pid int, p *pipes, status *bufio.Reader, start time.Time) (*proc.Result, error) {
	go func() {
		if len(c.Stdin) > 0 {
			_, _ = p.ours[0].Write(c.Stdin) // a child that does not read gets EPIPE'd, as spawned
		}
		p.ours[0].Close()
	}()
	stdout, stderr := proc.NewCapped(c.MaxOutput), proc.NewCapped(c.MaxOutput)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = io.Copy(stdout, p.ours[1]) }()
	go func() { defer wg.Done(); _, _ = io.Copy(stderr, p.ours[2]) }()
	exited := make(chan string, 1)
	go func() {
		line, _ := status.ReadString('\n')
		exited <- line
	}()

	var line string
	cancelled := false
	select {
	case line = <-exited:
	case <-ctx.Done():
		cancelled = true
		killGroup(pid)
		line = <-exited // the server reaps it now (or is gone: EOF)
	}
	ws, ok := parseStatus(line)

	output := make(chan struct{})
	go func() { wg.Wait(); close(output) }()
	held := false
	select {
	case <-output:
	case <-time.After(waitDelay):
		// A descendant holds the output open: stop reading, as exec.Cmd's WaitDelay does.
		held = true
		p.ours[1].Close()
		p.ours[2].Close()
		<-output
	}
	// Reap anything left in the group (a background grandchild) once the leader is gone.
	killGroup(pid)

	res := &proc.Result{
		Stdout: stdout.Bytes(), Stderr: stderr.Bytes(),
		StdoutTruncated: stdout.Truncated(), StderrTruncated: stderr.Truncated(),
		ExitCode: -1, Duration: time.Since(start),
	}
	if ok && ws.Exited() {
		res.ExitCode = ws.ExitStatus()
	}
	perr := proc.ExitError(c.Argv, res.ExitCode, res.Stderr)
	switch {
	case cancelled && errors.Is(ctx.Err(), context.DeadlineExceeded) && c.Timeout > 0:
		perr.TimedOut, perr.Timeout, perr.ExitCode = true, c.Timeout, -1
	case cancelled:
		perr.Err, perr.ExitCode = ctx.Err(), -1
	case !ok:
		perr.Err, perr.ExitCode = errServerLost, -1
	case res.ExitCode == 0 && !held:
		return res, nil
	case held && res.ExitCode == 0:
		return res, nil // complete enough to use, as proc.Run decides
	case held:
		perr.Err = exec.ErrWaitDelay
	}
	return res, perr
}

// parseStatus reads the server's "S<wait status>" line.
func parseStatus(line string) (syscall.WaitStatus, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "S")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return 0, false
	}
	return syscall.WaitStatus(n), true
}

// killGroup sends SIGKILL to the child's process group; it may be gone already.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
