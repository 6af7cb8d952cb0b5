package forkserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/internal/proc"
)

func python(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"python3", "python"} {
		if _, err := os.Stat("/usr/bin/" + name); err == nil {
			return name
		}
	}
	t.Skip("no python3")
	return ""
}

// misbehaving are graders that exit, crash, hang, flood and leak; each runs spawned and
// forked and must give the same Result fields and error.
var misbehaving = []struct {
	name, script string
	stdin        string
	env          []string
	files        map[string]string // beside the script
	timeout      time.Duration
	max          int
}{
	{name: "ok", script: `import json,sys; print(json.dumps({"score": 1}))`},
	{name: "exit code", script: `import sys; print("partial"); sys.exit(3)`},
	{name: "exit in module code", script: "import sys\nsys.exit(0)\nprint('never')"},
	{name: "exit with text", script: `import sys; sys.exit("bad grader")`},
	{name: "raise", script: "def f():\n    raise ValueError('boom')\nf()"},
	{name: "os._exit skips buffers", script: `import os,sys; sys.stdout.write("lost"); os._exit(7)`},
	{name: "segfault", script: `import ctypes; ctypes.string_at(0)`},
	{name: "hang killed with its child", script: `import subprocess,time; p=subprocess.Popen(["sleep","30"]); open("child.pid","w").write(str(p.pid)); time.sleep(30)`, timeout: 1500 * time.Millisecond},
	{name: "syntax error", script: "x = = 1"},
	{name: "main module like a spawned one", script: `import sys; print(__file__, __name__, __spec__, __cached__, type(__builtins__).__name__, type(__loader__).__name__, sys.modules["__main__"].__file__ == __file__)`},
	{name: "own excepthook", script: "import sys\nsys.excepthook = lambda t, e, tb: print('hooked', e, file=sys.stderr)\nraise KeyError('k')"},
	{name: "ctrl-c", script: "raise KeyboardInterrupt"},
	{name: "imports beside it", script: "import sys, helper_mod\nprint(helper_mod.X, sys.path[0] == __import__('os').path.dirname(__file__))", files: map[string]string{"helper_mod.py": "X = 5\n"}},
	{name: "safe path", script: "import sys; print('DIR' in repr(sys.path[:1]) or sys.path[0].startswith('/tmp'))", env: []string{"PYTHONSAFEPATH=1"}},
	{name: "garbage", script: `import sys; sys.stdout.buffer.write(bytes(range(256))); sys.stderr.write("\x00oops")`},
	{name: "huge output capped", script: `import sys; sys.stdout.write("x"*100000); sys.stderr.write("y"*100000)`, max: 1000},
	{name: "writes a file in cwd", script: `open("out.txt","w").write("hi"); print(open("out.txt").read())`},
	{name: "reads stdin fully", script: `import sys; d=sys.stdin.read(); print(len(d), d[:5])`, stdin: strings.Repeat("abcdef", 50000)},
	{name: "ignores stdin", script: `print("no read")`, stdin: strings.Repeat("z", 1<<20)},
	{name: "env only when passed", script: `import os; print(os.environ.get("SECRET_X"), os.environ.get("PASSED_Y"))`, env: []string{"PASSED_Y=yes"}},
	{name: "argv and path", script: `import sys,os; print(sys.argv[1:], os.path.basename(sys.argv[0]), os.path.basename(sys.path[0]) != "", __name__)`},
	{name: "atexit and threads", script: "import atexit,threading,time\natexit.register(lambda: print('bye'))\nthreading.Thread(target=lambda: (time.sleep(0.05), print('thread'))).start()"},
	{name: "background child keeps stdout", script: `import subprocess; subprocess.Popen(["sh","-c","sleep 5"]); print("done")`},
}

//nolint:paralleltest // t.Setenv: a variable of agentv's own environment must not reach a grader
func TestForkMatchesSpawn(t *testing.T) {
	py := python(t)
	pool := NewPool(4)
	pool.Preimport = Default.Preimport // as agentv runs them
	defer pool.Close()
	t.Setenv("SECRET_X", "leak")
	for _, tc := range misbehaving {
		t.Run(tc.name, func(t *testing.T) { //nolint:paralleltest // its parent sets the environment
			run := func(fork bool) (*proc.Result, string, string) {
				dir := t.TempDir()
				script := filepath.Join(dir, "grader.py")
				if err := os.WriteFile(script, []byte(tc.script+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				for name, body := range tc.files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				env := append(proc.ChildEnv(os.Environ(), nil, ""), tc.env...)
				env = removeVar(env, "SECRET_X")
				c := proc.Cmd{Argv: []string{py, script, "a b", "c"}, Dir: dir, Env: env, Timeout: tc.timeout, MaxOutput: tc.max}
				if c.Timeout == 0 {
					c.Timeout = 20 * time.Second
				}
				if tc.stdin != "" {
					c.Stdin = []byte(tc.stdin)
				}
				var res *proc.Result
				var err error
				if fork {
					res, err = pool.Run(context.Background(), c)
				} else {
					res, err = proc.Run(context.Background(), c)
				}
				if tc.timeout > 0 {
					checkGone(t, filepath.Join(dir, "child.pid"))
				}
				res.Stdout = []byte(strings.ReplaceAll(string(res.Stdout), dir, "DIR"))
				return res, strings.ReplaceAll(errText(err), dir, "DIR"), strings.ReplaceAll(string(res.Stderr), dir, "DIR")
			}
			sres, serr, sstderr := run(false)
			fres, ferr, fstderr := run(true)
			if tc.timeout > 0 { // what a killed script printed depends on timing
				sres.Stdout, fres.Stdout = nil, nil
			}
			if string(sres.Stdout) != string(fres.Stdout) || sstderr != fstderr ||
				sres.ExitCode != fres.ExitCode || sres.StdoutTruncated != fres.StdoutTruncated || sres.StderrTruncated != fres.StderrTruncated {
				t.Errorf("spawned: exit %d stdout %q stderr %q trunc %v/%v\nforked:  exit %d stdout %q stderr %q trunc %v/%v",
					sres.ExitCode, sres.Stdout, sstderr, sres.StdoutTruncated, sres.StderrTruncated,
					fres.ExitCode, fres.Stdout, fstderr, fres.StdoutTruncated, fres.StderrTruncated)
			}
			if serr != ferr {
				t.Errorf("spawned error %v\nforked error  %v", serr, ferr)
			}
		})
	}
}

// TestForkedCallsDoNotShareState checks a global set (and a module cached) by one call is not
// seen by the next.
func TestForkedCallsDoNotShareState(t *testing.T) {
	t.Parallel()
	py := python(t)
	pool := NewPool(1)
	defer pool.Close()
	dir := t.TempDir()
	script := filepath.Join(dir, "g.py")
	helper := filepath.Join(dir, "helper.py")
	must(t, os.WriteFile(helper, []byte("count = 0\n"), 0o600))
	must(t, os.WriteFile(script, []byte("import builtins, helper\nhelper.count += 1\nprint(getattr(builtins, 'leak', 'clean'), helper.count)\nbuiltins.leak = 'dirty'\nglobal_list = [0] * 10**6\n"), 0o600))
	c := proc.Cmd{Argv: []string{py, script}, Dir: dir, Env: os.Environ(), Timeout: 10 * time.Second}
	for i := range 3 {
		res, err := pool.Run(context.Background(), c)
		if err != nil || strings.TrimSpace(string(res.Stdout)) != "clean 1" {
			t.Fatalf("call %d: %v %q", i, err, res.Stdout)
		}
	}
	if n := len(pool.servers); n != 1 {
		t.Fatalf("%d servers, want 1 reused", n)
	}
}

// TestServerRestartsAndFallsBack kills the server between calls: the next call starts a new
// one; a call it cannot serve (missing script) is spawned and fails as spawned.
func TestServerRestartsAndFallsBack(t *testing.T) {
	t.Parallel()
	py := python(t)
	pool := NewPool(2)
	defer pool.Close()
	dir := t.TempDir()
	script := filepath.Join(dir, "g.py")
	must(t, os.WriteFile(script, []byte("print('ok')\n"), 0o600))
	c := proc.Cmd{Argv: []string{py, script}, Dir: dir, Env: os.Environ(), Timeout: 10 * time.Second}
	if _, err := pool.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for _, s := range pool.servers {
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	res, err := pool.Run(context.Background(), c)
	if err != nil || string(res.Stdout) != "ok\n" {
		t.Fatalf("after a crash: %v %q", err, res.Stdout)
	}
	c.Argv[1] = filepath.Join(dir, "missing.py")
	_, ferr := pool.Run(context.Background(), c)
	_, serr := proc.Run(context.Background(), c)
	if ferr == nil || errText(ferr) != errText(serr) {
		t.Fatalf("missing script: forked %v, spawned %v", ferr, serr)
	}
}

// TestInterpreterRelativeToDir: ./bin/python is found in the call's directory, as exec.Cmd
// finds it, and the call is served by a server of that interpreter.
func TestInterpreterRelativeToDir(t *testing.T) {
	t.Parallel()
	py := python(t)
	interp, _ := exec.LookPath(py)
	pool := NewPool(1)
	defer pool.Close()
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "bin"), 0o700))
	if err := os.Symlink(interp, filepath.Join(dir, "bin", "python3")); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "g.py"), []byte("print('ok')\n"), 0o600))
	c := proc.Cmd{Argv: []string{"bin/python3", "g.py"}, Dir: dir, Env: os.Environ(), Timeout: 10 * time.Second}
	res, err := pool.Run(context.Background(), c)
	if err != nil || string(res.Stdout) != "ok\n" || len(pool.servers) != 1 {
		t.Fatalf("%v %q, %d servers", err, res.Stdout, len(pool.servers))
	}
}

// TestEnvironmentsGetTheirOwnServer: a server never serves two environments.
func TestEnvironmentsGetTheirOwnServer(t *testing.T) {
	t.Parallel()
	py := python(t)
	pool := NewPool(4)
	defer pool.Close()
	dir := t.TempDir()
	script := filepath.Join(dir, "g.py")
	must(t, os.WriteFile(script, []byte("import os; print(os.environ.get('K'), os.getppid() == int(os.environ.get('P', '0')))\n"), 0o600))
	for _, v := range []string{"a", "b", "a"} {
		c := proc.Cmd{Argv: []string{py, script}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "K=" + v}, Timeout: 10 * time.Second}
		res, err := pool.Run(context.Background(), c)
		if err != nil || !strings.HasPrefix(string(res.Stdout), v+" ") {
			t.Fatalf("K=%s: %v %q", v, err, res.Stdout)
		}
	}
	if n := len(pool.servers); n != 2 {
		t.Fatalf("%d servers, want 2", n)
	}
}

func TestEligible(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		argv []string
		want bool
	}{
		{[]string{"python3", "g.py"}, true},
		{[]string{"/usr/bin/python3.11", "dir/g.py", "x"}, true},
		{[]string{"python", "g.py"}, true},
		{[]string{"python3", "-c", "print(1)"}, false},
		{[]string{"python3", "-u", "g.py"}, false},
		{[]string{"python3-config", "g.py"}, false},
		{[]string{"sh", "-c", "python3 g.py"}, false},
		{[]string{"node", "g.py"}, false},
		{[]string{"python3", "g.sh"}, false},
		{[]string{"python3"}, false},
	} {
		if got := Eligible(tc.argv); got != tc.want {
			t.Errorf("Eligible(%q) = %v, want %v", tc.argv, got, tc.want)
		}
	}
}

// checkGone fails when the process whose pid the grader wrote still runs.
func checkGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the grader did not start its child: %v", err)
	}
	pid, _ := strconv.Atoi(string(data))
	for range 50 {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(st), ") Z ") {
			return // killed, not yet reaped by its new parent
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the grader's child %d outlived the timeout", pid)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func removeVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// TestServerEndsWithAgentv: when agentv's end of the socket closes (however agentv ends), the
// server exits by itself.
func TestServerEndsWithAgentv(t *testing.T) {
	t.Parallel()
	py := python(t)
	interp, _ := exec.LookPath(py)
	s, err := startServer(interp, os.Environ(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.ctl.Close()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Fatal("the server outlived its socket")
	}
}

// TestConcurrentCalls: calls in flight at once on one server each get their own output.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	py := python(t)
	pool := NewPool(1)
	defer pool.Close()
	dir := t.TempDir()
	script := filepath.Join(dir, "g.py")
	must(t, os.WriteFile(script, []byte("import sys, time\nd = sys.stdin.read()\ntime.sleep(0.2)\nprint(d)\nsys.exit(int(d) % 3)\n"), 0o600))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := proc.Cmd{Argv: []string{py, script}, Dir: dir, Env: os.Environ(), Stdin: []byte(strconv.Itoa(i)), Timeout: 20 * time.Second}
			res, _ := pool.Run(context.Background(), c)
			if strings.TrimSpace(string(res.Stdout)) != strconv.Itoa(i) || res.ExitCode != i%3 {
				t.Errorf("call %d: exit %d stdout %q", i, res.ExitCode, res.Stdout)
			}
		}()
	}
	wg.Wait()
}

// TestNoDirIsAgentvsDir: a call without a directory runs in agentv's, as a spawned one does.
func TestNoDirIsAgentvsDir(t *testing.T) {
	t.Parallel()
	py := python(t)
	pool := NewPool(1)
	defer pool.Close()
	script := filepath.Join(t.TempDir(), "g.py")
	must(t, os.WriteFile(script, []byte("import os; print(os.getcwd())\n"), 0o600))
	c := proc.Cmd{Argv: []string{py, script}, Env: os.Environ(), Timeout: 10 * time.Second}
	fres, ferr := pool.Run(context.Background(), c)
	sres, serr := proc.Run(context.Background(), c)
	if ferr != nil || serr != nil || string(fres.Stdout) != string(sres.Stdout) || len(pool.servers) != 1 {
		t.Fatalf("forked %v %q, spawned %v %q", ferr, fres.Stdout, serr, sres.Stdout)
	}
}

// TestStuckServerTimesOut: a server that stops answering cannot make a call outlive its
// timeout; it is replaced for the next call.
func TestStuckServerTimesOut(t *testing.T) {
	t.Parallel()
	py := python(t)
	pool := NewPool(1)
	defer pool.Close()
	dir := t.TempDir()
	script := filepath.Join(dir, "g.py")
	must(t, os.WriteFile(script, []byte("print('ok')\n"), 0o600))
	c := proc.Cmd{Argv: []string{py, script}, Dir: dir, Env: os.Environ(), Timeout: 10 * time.Second}
	if _, err := pool.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for _, s := range pool.servers {
		_ = s.cmd.Process.Signal(syscall.SIGSTOP)
	}
	c.Timeout = 300 * time.Millisecond
	begin := time.Now()
	_, err := pool.Run(context.Background(), c)
	if !errors.Is(err, proc.ErrTimeout) || time.Since(begin) > 5*time.Second {
		t.Fatalf("stuck server: %v after %s", err, time.Since(begin))
	}
	c.Timeout = 10 * time.Second
	if res, err := pool.Run(context.Background(), c); err != nil || string(res.Stdout) != "ok\n" {
		t.Fatalf("after a stuck server: %v %q", err, res.Stdout)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
