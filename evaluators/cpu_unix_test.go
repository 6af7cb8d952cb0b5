//go:build unix

package evaluators

import (
	"syscall"
	"time"
)

// selfCPU is this process's user+system CPU time (children excluded).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
