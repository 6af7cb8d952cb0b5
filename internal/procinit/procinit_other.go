//go:build !linux

package procinit

import "os"

// Start moves nothing and never acts as init outside Linux (no /proc, no PID-1 containers):
// it only drops the token variables from what child processes inherit by default.
func Start(warn func(string)) Secrets {
	_, moved := split(os.Environ())
	for k := range moved {
		os.Unsetenv(k)
	}
	return moved
}
