//go:build unix

package evaluators

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// processGone reports whether pid no longer runs (absent, or a zombie nobody reaped yet).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	// Field 3 is the state; the command in field 2 may hold spaces, so look after ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}
