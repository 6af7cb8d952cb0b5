package forkserver

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentv/action/internal/proc"
)

//go:embed server.py
var serverSource string

// waitDelay matches internal/proc: how long output is awaited after the child exited.
const waitDelay = 2 * time.Second

// server is one running python fork server.
type server struct {
	cmd  *exec.Cmd
	ctl  *os.File // our end of the SOCK_SEQPACKET socket; the server's is its fd 3
	send sync.Mutex
	dead atomic.Bool
	done chan struct{} // closed when the server process has exited

	busy int    // calls in flight (Pool.mu)
	used uint64 // last use (Pool.mu)
}

// startServer starts python with env (the filtered environment a spawned grader would get).
func startServer(interp string, env []string, preimport []string) (*server, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "forkserver"), os.NewFile(uintptr(fds[1]), "forkserver-peer")
	defer theirs.Close()
	argv := []string{"-c", serverSource}
	if len(preimport) > 0 {
		argv = append(argv, "--preimport", strings.Join(preimport, ","))
	}
	cmd := exec.Command(interp, argv...)
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{theirs}
	// Its own group: a Ctrl-C meant for agentv does not reach it. Its end comes as EOF on fd 3,
	// which the kernel delivers however agentv ends (even SIGKILL); no Pdeathsig, which fires
	// when the OS thread that started it exits, not the process (golang/go#27505).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		ours.Close()
		return nil, err
	}
	s := &server{cmd: cmd, ctl: ours, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		s.dead.Store(true)
		close(s.done)
	}()
	return s, nil
}

func (s *server) isDead() bool { return s.dead.Load() }
func (s *server) markDead()    { s.dead.Store(true) }

// stop ends the server: EOF on its socket, and a kill for one that does not read it.
func (s *server) stop() {
	s.dead.Store(true)
	s.ctl.Close()
	_ = s.cmd.Process.Kill()
}

// request encodes the call for server.py: cwd, argc, argv…, env… separated by NUL bytes.
func request(c proc.Cmd) ([]byte, error) {
	var b bytes.Buffer
	fields := append(append([]string{c.Dir, strconv.Itoa(len(c.Argv))}, c.Argv...), c.Env...)
	for i, f := range fields {
		if strings.IndexByte(f, 0) >= 0 {
			return nil, errors.New("NUL byte in the command")
		}
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(f)
	}
	return b.Bytes(), nil
}

// pipes are a call's descriptors: ours to read and write, the child's to pass.
type pipes struct {
	ours, theirs []*os.File // stdin write, stdout read, stderr read, status read / stdin read, stdout write, stderr write, status write
}

func newPipes() (*pipes, error) {
	p := &pipes{}
	for i := range 4 {
		r, w, err := os.Pipe()
		if err != nil {
			p.closeAll()
			return nil, err
		}
		if i == 0 {
			p.ours, p.theirs = append(p.ours, w), append(p.theirs, r)
		} else {
			p.ours, p.theirs = append(p.ours, r), append(p.theirs, w)
		}
	}
	return p, nil
}

func (p *pipes) closeTheirs() {
	for _, f := range p.theirs {
		f.Close()
	}
}

func (p *pipes) closeAll() {
	p.closeTheirs()
	for _, f := range p.ours {
		f.Close()
	}
}

// call runs c in a forked child. served is false when the server never started the child
// (the caller spawns instead); otherwise res and err are what proc.Run would return.
func (s *server) call(ctx context.Context, c proc.Cmd) (res *proc.Result, err error, served bool) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	start := time.Now()
	msg, err := request(c)
	if err != nil || s.isDead() {
		return nil, nil, false
	}
	p, err := newPipes()
	if err != nil {
		return nil, nil, false
	}
	defer p.closeAll()
	rights := syscall.UnixRights(int(p.theirs[0].Fd()), int(p.theirs[1].Fd()), int(p.theirs[2].Fd()), int(p.theirs[3].Fd()))
	s.send.Lock()
	err = syscall.Sendmsg(int(s.ctl.Fd()), msg, rights, nil, 0)
	s.send.Unlock()
	p.closeTheirs()
	if err != nil {
		return nil, nil, false
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = proc.DefaultMaxOutput
	}
	status := bufio.NewReader(p.ours[3])
	started := make(chan string, 1)
	go func() {
		line, _ := status.ReadString('\n')
		started <- line
	}()
	var line string
	select {
	case line = <-started:
	case <-ctx.Done():
		// A server that does not even fork in time is stuck: it is replaced, and the call
		// ends as a spawned one would have when its time ran out.
		s.stop()
		perr := &proc.Error{Argv: c.Argv, ExitCode: -1, Err: ctx.Err()}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.Timeout > 0 {
			perr.Err, perr.TimedOut, perr.Timeout = nil, true, c.Timeout
		}
		return &proc.Result{ExitCode: -1, Duration: time.Since(start)}, perr, true
	}
	pid, perr := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "P"))
	if !strings.HasPrefix(line, "P") || perr != nil || pid <= 0 {
		return nil, nil, false // the server died or refused the call before forking
	}
	res, err = wait(ctx, c, pid, p, status, start)
	return res, err, true
}
