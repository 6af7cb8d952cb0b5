//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoBlock opens path read-only with O_NONBLOCK, so that a FIFO without a writer does not
// block, then clears the flag: reads from a regular file must behave as usual.
func openNoBlock(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
