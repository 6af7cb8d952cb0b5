// Package safefile opens files that a user or a child process controls (eval files, targets,
// .env, prompt and guideline files, attachments, a command's output file) so that they can
// neither hang the run nor exhaust its memory: opening never blocks (a FIFO with no writer
// would block open(2) forever, out of reach of timeouts and signals), anything but a regular
// file is refused with an error naming the path and what it is, and whole-file reads stop
// at a cap.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Caps for whole-file reads, by kind of file.
const (
	// LimitConfig bounds targets files, .env files and .agentv configuration.
	LimitConfig = 8 << 20
	// LimitContent bounds files whose text goes into a prompt or a template: prompt files,
	// guidelines, attachments, workspace templates, a judge's aggregator prompt.
	LimitContent = 32 << 20
	// LimitEvalFile bounds a YAML eval file, which is parsed whole. JSONL eval files and
	// results files are streamed and have no cap.
	LimitEvalFile = 64 << 20
)

// NotRegularError is a path that names a FIFO, device, directory, socket or the like.
type NotRegularError struct {
	Path   string
	Mode   fs.FileMode
	Target string // where a symbolic link at Path leads, "" when Path is not one
}

func (e *NotRegularError) Error() string {
	via := ""
	if e.Target != "" {
		via = " (a symbolic link to " + e.Target + ")"
	}
	return fmt.Sprintf("%s%s is %s, not a regular file", e.Path, via, Describe(e.Mode))
}

// TooLargeError is a file over the read cap.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the %s limit for this kind of file", e.Path, FormatSize(e.Limit))
}

// Describe names the kind of file a mode stands for, with an article: "a directory".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// FormatSize renders a cap: "8 MiB", "512 KiB" or "100 bytes".
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens path for reading when it is a regular file (a symbolic link to one counts).
// It refuses anything else without reading from it, and it does not block on a FIFO.
func Open(path string) (*os.File, error) {
	// Stat first so that a device is refused without being opened at all; the check is
	// repeated on the open descriptor, since the path may change in between.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}

// ReadFile reads a whole regular file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit)
}

// ReadAll reads the rest of f, which Open returned for path, refusing more than limit bytes.
func ReadAll(f *os.File, path string, limit int64) ([]byte, error) {
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	if size > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	// The size is a hint only: a file that grows while it is read still stops at the cap.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}

// notRegular builds the error for path, saying where it leads when it is a symbolic link.
func notRegular(path string, m fs.FileMode) error {
	e := &NotRegularError{Path: path, Mode: m}
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(path); err == nil {
			e.Target = t
		}
	}
	return e
}

// WalkDown visits each existing path from base down to base/rel, rel's last element included
// and base itself not, with what Lstat says of it (links are not followed). It stops without
// error at the first element that does not exist, and at the first error visit returns.
// Callers use it to refuse a symbolic link anywhere below a folder they trust.
func WalkDown(base, rel string, visit func(path string, fi fs.FileInfo) error) error {
	if rel == "." || rel == "" {
		return nil
	}
	d := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		fi, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := visit(d, fi); err != nil {
			return err
		}
	}
	return nil
}

// RelWithin returns path relative to root when path is root or lies below it.
func RelWithin(path, root string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	up := rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	return rel, err == nil && !up && !filepath.IsAbs(rel)
}

// Within reports whether path is root or lies below it.
func Within(path, root string) bool {
	_, ok := RelWithin(path, root)
	return ok
}
