//go:build unix

package jsworker

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentv/action/internal/proc"
)

// loadTimeout bounds a worker's start (runtime, module load) when the call has no timeout.
const loadTimeout = time.Minute

// waitDelay bounds how long a call waits for the output of a worker that exited, as
// internal/proc waits for a grandchild holding stdout.
const waitDelay = 2 * time.Second

// Pool holds workers, at most max of them, idle ones per key.
type Pool struct {
	mu       sync.Mutex
	max      int
	total    int
	idle     map[[32]byte][]*worker
	skip     map[[32]byte]bool // keys whose script did not load as an SDK grader: spawned
	failures map[[32]byte]int  // workers of a key that would not start (or load in time), in a row
	starts   int
	served   int
	tick     uint64
	// MaxCalls is how many calls a worker serves before it is replaced (NewPool: the package's
	// MaxCalls).
	MaxCalls int
}

// maxFailures is how many workers of a key may fail to start in a row before its calls are only
// spawned: a runtime that cannot run the worker must not cost a start per call.
const maxFailures = 3

// NewPool returns a pool of at most max workers.
func NewPool(max int) *Pool {
	return &Pool{max: max, idle: map[[32]byte][]*worker{}, skip: map[[32]byte]bool{}, failures: map[[32]byte]int{}, MaxCalls: MaxCalls}
}

// Default is the pool Run uses: room for a few graders per case with --workers near the number
// of cores (a node worker holds about 40 MB).
var Default = NewPool(min(max(2*runtime.GOMAXPROCS(0), 8), 16))

// Starts reports how many workers the pool started (a test and benchmark figure).
func (p *Pool) Starts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}

// Served reports how many calls workers answered (a test and benchmark figure).
func (p *Pool) Served() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}

// Run runs c in a worker when it is an SDK grader's command, else (or when no worker can take
// it) with proc.Run.
func (p *Pool) Run(ctx context.Context, c proc.Cmd) (*proc.Result, error) {
	pl, ok := eligible(c)
	if !ok {
		return proc.Run(ctx, c)
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = proc.DefaultMaxOutput
	}
	k := key(pl, c)
	w := p.acquire(ctx, k, pl, c)
	if w == nil {
		return proc.Run(ctx, c)
	}
	res, err, reuse := w.call(ctx, c)
	p.release(k, w, reuse)
	return res, err
}

// key names a worker's state: the command, the script and its arguments, the environment and
// the working directory.
func key(pl plan, c proc.Cmd) [32]byte {
	h := sha256.New()
	put := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	for _, list := range [][]string{pl.runtime, {pl.script}, pl.args, c.Env, {c.Dir}} {
		put(strconv.Itoa(len(list)))
		for _, s := range list {
			put(s)
		}
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func (p *Pool) acquire(ctx context.Context, k [32]byte, pl plan, c proc.Cmd) *worker {
	p.mu.Lock()
	if p.skip[k] || p.failures[k] >= maxFailures {
		p.mu.Unlock()
		return nil
	}
	for ws := p.idle[k]; len(ws) > 0; ws = p.idle[k] {
		w := ws[len(ws)-1]
		p.idle[k] = ws[:len(ws)-1]
		if w.usable() {
			p.mu.Unlock()
			return w
		}
		p.total--
		w.stop()
	}
	if p.total >= p.max && !p.evictLocked() {
		p.mu.Unlock()
		return nil // every worker is busy: spawning is as fast as waiting
	}
	p.total++
	p.starts++
	p.mu.Unlock()

	path, err := workerScript()
	var w *worker
	if err == nil {
		w, err = startWorker(ctx, pl, c, path)
	}
	if err != nil {
		p.mu.Lock()
		p.total--
		if errors.Is(err, errNotSDK) {
			p.skip[k] = true
		} else {
			p.failures[k]++
		}
		p.mu.Unlock()
		return nil
	}
	p.mu.Lock()
	p.failures[k] = 0
	p.mu.Unlock()
	return w
}

// evictLocked stops the least recently used idle worker; false when none is idle.
func (p *Pool) evictLocked() bool {
	var oldK [32]byte
	oldI := -1
	for k, ws := range p.idle {
		for i, w := range ws {
			if oldI < 0 || w.used < p.idle[oldK][oldI].used {
				oldK, oldI = k, i
			}
		}
	}
	if oldI < 0 {
		return false
	}
	ws := p.idle[oldK]
	ws[oldI].stop()
	p.idle[oldK] = append(ws[:oldI:oldI], ws[oldI+1:]...)
	if len(p.idle[oldK]) == 0 {
		delete(p.idle, oldK)
	}
	p.total--
	return true
}

func (p *Pool) release(k [32]byte, w *worker, reuse bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.served++
	if !reuse || !w.usable() || w.calls >= p.MaxCalls {
		p.total--
		w.stop()
		return
	}
	p.tick++
	w.used = p.tick
	p.idle[k] = append(p.idle[k], w)
}

// Close stops the idle workers.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, ws := range p.idle {
		for _, w := range ws {
			w.stop()
			p.total--
		}
		delete(p.idle, k)
	}
}

// errNotSDK is a script that loaded in a worker but is not served by it: it registered no
// handler (or several), printed while loading, failed to load, or exited.
var errNotSDK = errors.New("not an SDK grader")

type answer struct {
	Ready bool   `json:"ready"`
	Why   string `json:"why"`
	Exit  int    `json:"exit"`
	Clean bool   `json:"clean"`
}

// worker is one runtime process serving one script.
type worker struct {
	cmd      *exec.Cmd
	requests *os.File // the worker's fd 3
	answers  chan answer
	out, err *fenced
	done     chan struct{} // closed once the process was waited for
	calls    int
	used     uint64 // the pool's tick when it last went idle
}

func startWorker(ctx context.Context, pl plan, c proc.Cmd, path string) (*worker, error) {
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	fence := "\x01agentv-fence-" + hex.EncodeToString(tok[:]) + "\x01" // argv holds no NUL
	argv := append(append(append([]string{}, pl.runtime...), path, fence, pl.script), pl.args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	var pipes [8]*os.File // reqR reqW ansR ansW outR outW errR errW
	for i := 0; i < 8; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range pipes[:i] {
				f.Close()
			}
			return nil, err
		}
		pipes[i], pipes[i+1] = r, w
	}
	cmd.ExtraFiles = []*os.File{pipes[0], pipes[3]}
	cmd.Stdout, cmd.Stderr = pipes[5], pipes[7]
	err := cmd.Start()
	for _, i := range []int{0, 3, 5, 7} {
		pipes[i].Close()
	}
	if err != nil {
		for _, i := range []int{1, 2, 4, 6} {
			pipes[i].Close()
		}
		return nil, err
	}
	w := &worker{cmd: cmd, requests: pipes[1], answers: make(chan answer, 1),
		out: newFenced([]byte(fence)), err: newFenced([]byte(fence)), done: make(chan struct{})}
	go w.out.run(pipes[4])
	go w.err.run(pipes[6])
	go w.readAnswers(pipes[2])
	go func() {
		_ = cmd.Wait()
		close(w.done)
	}()

	// Loading: anything printed means module-level code talks, which a spawn would repeat on
	// every call; such a script is spawned.
	loadOut, loadErr := proc.NewCapped(1<<10), proc.NewCapped(1<<10)
	w.out.setSink(loadOut)
	w.err.setSink(loadErr)
	limit := loadTimeout
	if c.Timeout > 0 {
		limit = c.Timeout
	}
	lctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var a answer
	var ok bool
	select {
	case a, ok = <-w.answers:
	case <-lctx.Done():
	}
	if ctx.Err() != nil {
		w.stop()
		return nil, ctx.Err()
	}
	if ok && a.Ready && !w.fenced(lctx.Done()) {
		ok = false
	}
	switch {
	case lctx.Err() != nil: // slow, not wrong: a later worker may load in time
		w.stop()
		return nil, errors.New("the grader worker did not load in time")
	case !ok || !a.Ready || loadOut.Len() > 0 || loadErr.Len() > 0:
		w.stop()
		return nil, errNotSDK
	}
	return w, nil
}

func (w *worker) readAnswers(f *os.File) {
	defer close(w.answers)
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var a answer
		if json.Unmarshal(line, &a) != nil {
			return // not the worker speaking: treat it as gone
		}
		select {
		case w.answers <- a:
		case <-w.done: // nobody waits for a dead worker's answers
			return
		}
	}
}

// fenced waits for the fence on both streams; false when a stream ended or timeout was closed first.
func (w *worker) fenced(timeout <-chan struct{}) bool {
	for _, s := range []*fenced{w.out, w.err} {
		select {
		case <-s.fences:
		case <-s.eof:
			return false
		case <-timeout:
			return false
		}
	}
	return true
}

func (w *worker) usable() bool {
	select {
	case <-w.done:
		return false
	default:
	}
	return !w.out.isDirty() && !w.err.isDirty()
}

// stop kills the worker's process group (the worker and anything its handlers started).
func (w *worker) stop() {
	_ = w.requests.Close()
	_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
}

// call runs one payload as proc.Run would run the script; reuse says whether the worker may
// serve another call.
func (w *worker) call(ctx context.Context, c proc.Cmd) (res *proc.Result, err error, reuse bool) {
	w.calls++
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	stdout, stderr := proc.NewCapped(c.MaxOutput), proc.NewCapped(c.MaxOutput)
	w.out.setSink(stdout)
	w.err.setSink(stderr)
	start := time.Now()
	go func() {
		// A failed write means the worker is gone, which the answer channel reports.
		_, _ = w.requests.Write(append([]byte(strconv.Itoa(len(c.Stdin))+"\n"), c.Stdin...))
	}()
	result := func(exit int) *proc.Result {
		return &proc.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), StdoutTruncated: stdout.Truncated(),
			StderrTruncated: stderr.Truncated(), ExitCode: exit, Duration: time.Since(start)}
	}
	select {
	case a, ok := <-w.answers:
		if !ok {
			return w.exited(c, result)
		}
		if !w.fenced(ctx.Done()) {
			if ctx.Err() != nil {
				return w.cut(ctx, c, result)
			}
			return w.exited(c, result)
		}
		res := result(a.Exit)
		if a.Exit != 0 {
			return res, proc.ExitError(c.Argv, a.Exit, res.Stderr), false
		}
		return res, nil, a.Clean
	case <-ctx.Done():
		return w.cut(ctx, c, result)
	}
}

// exited is the call's result when the worker ended during it (the handler called
// process.exit, or the runtime died): its output up to the end and its exit status.
func (w *worker) exited(c proc.Cmd, result func(int) *proc.Result) (*proc.Result, error, bool) {
	w.drain()
	_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL) // a grandchild holding the output
	<-w.done
	code := w.cmd.ProcessState.ExitCode()
	res := result(code)
	if code == 0 {
		return res, nil, false
	}
	return res, proc.ExitError(c.Argv, code, res.Stderr), false
}

// drain waits (at most waitDelay, as internal/proc) until both output streams ended, so
// that what the worker wrote before it ended is the call's.
func (w *worker) drain() {
	deadline := time.After(waitDelay)
	for _, s := range []*fenced{w.out, w.err} {
		select {
		case <-s.eof:
		case <-deadline:
			return
		}
	}
}

// cut ends a call its timeout or context ended: the worker's group is killed, as a spawned
// script's would be.
func (w *worker) cut(ctx context.Context, c proc.Cmd, result func(int) *proc.Result) (*proc.Result, error, bool) {
	w.stop()
	w.drain()
	<-w.done
	res := result(-1)
	perr := proc.ExitError(c.Argv, -1, res.Stderr)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.Timeout > 0 {
		perr.TimedOut, perr.Timeout = true, c.Timeout
	} else {
		perr.Err = ctx.Err()
	}
	return res, perr, false
}
