package procinit

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
)

const (
	prSetDumpable       = 4  // PR_SET_DUMPABLE
	prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER
	fSetPipeSize        = 1031
	fGetPipeSize        = 1032
)

// initVar forces init mode (1: act as init, reaping orphans as a subreaper, even when not
// PID 1) or disables it (0: never, even as PID 1). The worker an init starts gets 0. Init
// mode exists on Linux only (subreapers are a Linux feature).
const initVar = "AGENTV_INIT"

// selfExe is the running binary, whatever its path or name.
const selfExe = "/proc/self/exe"

// Start runs before anything else in main. It returns the token variables moved out of the
// environment (nil when there were none). It may instead re-execute the process with a
// scrubbed environment, and as PID 1 (or with AGENTV_INIT=1) it never returns: it runs the
// real work as a child process, reaps every orphan and exits with the child's exit code.
// warn reports what could not be done; the run goes on regardless.
func Start(warn func(string)) Secrets {
	var secrets Secrets
	if fd, ok := os.LookupEnv(fdVar); ok {
		os.Unsetenv(fdVar)
		s, err := readSecrets(fd)
		if err != nil {
			warn(fmt.Sprintf("could not read the tokens passed by the parent process: %v", err))
		}
		secrets = s
	}
	rest, moved := split(os.Environ())
	if len(moved) > 0 {
		for k, v := range secrets {
			if _, ok := moved[k]; !ok {
				moved[k] = v
			}
		}
		err := scrubExec(rest, moved) // returns only on failure
		warn(fmt.Sprintf("could not move the GitHub and Actions tokens out of the environment (child processes could read them from /proc): %v", err))
		for k := range moved {
			os.Unsetenv(k)
		}
		secrets = moved
	}
	if len(secrets) > 0 {
		// Processes of the same user cannot read an undumpable process's memory or
		// descriptors through /proc (ptrace access rules).
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
	}
	if mode := os.Getenv(initVar); mode == "1" || (os.Getpid() == 1 && mode != "0") {
		if code, err := runInit(secrets); err == nil {
			os.Exit(code)
		} else {
			warn(fmt.Sprintf("could not start the run as a child process; orphaned processes will not be reaped: %v", err))
		}
	}
	return secrets
}

// readSecrets reads the tokens from the inherited pipe and closes it.
func readSecrets(s string) (Secrets, error) {
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q is not an inherited descriptor", fdVar, s)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil, fmt.Errorf("%s=%d is not a pipe", fdVar, fd)
	}
	f := os.NewFile(uintptr(fd), "tokens")
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil, err
	}
	return decode(data)
}

// tokenPipe returns a pipe whose read end holds s, the write end closed. The whole payload
// must fit in the pipe: nobody reads it before the exec.
func tokenPipe(s Secrets) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	payload := s.encode()
	size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), fGetPipeSize, 0)
	if errno == 0 && int(size) < len(payload) {
		size, _, errno = syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), fSetPipeSize, uintptr(len(payload)))
	}
	if errno != 0 || int(size) < len(payload) {
		r.Close()
		return nil, fmt.Errorf("%d bytes of tokens do not fit in a pipe", len(payload))
	}
	if _, err := w.Write(payload); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// scrubExec re-executes the binary with env (the environment without the tokens) and the
// tokens in an inherited pipe. It returns only when that fails.
func scrubExec(env []string, s Secrets) error {
	r, err := tokenPipe(s)
	if err != nil {
		return err
	}
	defer r.Close()
	fd := r.Fd()
	// The read end must survive the exec (descriptors Go opens do not).
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, 0); errno != 0 {
		return errno
	}
	env = append(env, fdVar+"="+strconv.Itoa(int(fd)))
	err = syscall.Exec(selfExe, os.Args, env)
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, syscall.FD_CLOEXEC)
	return err
}

// runInit starts the real work as a child process (same binary and arguments, the tokens in
// a pipe), forwards termination signals to it, reaps every process that ends up as this
// one's child, and returns the worker's exit code once it has exited.
func runInit(s Secrets) (int, error) {
	if os.Getpid() != 1 {
		// Orphans of the worker's descendants are reparented here, not to the system's init.
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
			return 0, fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", errno)
		}
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	env, _ := split(os.Environ())
	env = slices.DeleteFunc(env, func(kv string) bool { return kvName(kv) == initVar || kvName(kv) == fdVar })
	env = append(env, initVar+"=0")
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	if len(s) > 0 {
		r, err := tokenPipe(s)
		if err != nil {
			return 0, err
		}
		defer r.Close()
		files = append(files, r)
		env = append(env, fdVar+"=3")
	}
	worker, err := os.StartProcess(selfExe, os.Args, &os.ProcAttr{Env: env, Files: files})
	if len(files) > 3 {
		files[3].Close() // the worker holds the tokens' pipe now
	}
	if err != nil {
		signal.Stop(sigs)
		return 0, err
	}
	for {
		if code, done := reap(worker.Pid); done {
			return code, nil
		}
		sig := <-sigs
		if sig != syscall.SIGCHLD {
			_ = worker.Signal(sig)
		}
	}
}

// reap collects every child that has exited; done when one of them is the worker.
func reap(worker int) (code int, done bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if pid <= 0 || err != nil {
			return code, done
		}
		if pid == worker {
			done = true
			switch {
			case ws.Exited():
				code = ws.ExitStatus()
			case ws.Signaled():
				code = 128 + int(ws.Signal())
			default:
				code = 3
			}
		}
	}
}
