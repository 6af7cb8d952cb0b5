//go:build !unix

package evaluators

import "os"

// processGone reports whether pid no longer runs: where there is no signal 0 (Windows),
// a process that cannot be opened is gone.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	_ = p.Release()
	return false
}
