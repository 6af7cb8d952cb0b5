//go:build !unix

package proc

import (
	"os"
	"os/exec"
)

// startGroup does nothing where there are no Unix process groups (Windows): the child
// starts as usual.
func startGroup(*exec.Cmd) {}

// killGroup kills only the child itself where there are no Unix process groups
// (Windows): processes it started in the background may outlive a timeout. Errors are
// ignored: the child may already be gone.
func killGroup(p *os.Process) {
	_ = p.Kill()
}
