package proc

import "os/exec"

// ownGroup does nothing on Windows: there are no process groups to signal.
func ownGroup(*exec.Cmd) {}

// killGroup kills the command; on Windows the processes it started are not reached.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.ProcessState == nil {
		_ = cmd.Process.Kill()
	}
}
