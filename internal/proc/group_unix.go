//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// startGroup makes the child the leader of a new process group, so killGroup reaches
// everything it starts.
func startGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the child's whole process group. Errors are ignored: the
// group may already be gone.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
