//go:build !unix

package safefile

import "os"

// openNoBlock opens path read-only. Without O_NONBLOCK the Stat check before it is what keeps
// special files out.
func openNoBlock(path string) (*os.File, error) {
	return os.Open(path)
}
