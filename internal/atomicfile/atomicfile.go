// Package atomicfile writes a file under a temporary name in its destination's directory and
// renames it into place when complete, so readers (and the next run) see either the previous
// file or the whole new one, never a truncated mix; a write given up leaves the previous
// file as it was.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Suffix ends the name of a file still being written: "results.jsonl.<random>.partial". One
// left behind belongs to a process that was killed before it could finish.
const Suffix = ".partial"

// File is a file being written; Commit puts it in place, Abort drops it.
type File struct {
	*os.File
	dest string
	done bool
}

// Create starts writing dest. The directory must exist.
func Create(dest string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(dest), filepath.Base(dest)+".*"+Suffix)
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file private; outputs are readable like any file the user writes.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f, dest: dest}, nil
}

// Commit syncs and closes the file and renames it to its destination, replacing what was
// there (a symbolic link there is replaced, not followed). On failure the file is removed.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: already committed or aborted")
	}
	if err := f.commit(true); err != nil {
		return fmt.Errorf("could not write %s: %w", f.dest, err)
	}
	return nil
}

func (f *File) commit(sync bool) error {
	f.done = true
	var err error
	if sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.dest)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort closes and removes the file, leaving the destination untouched. It does nothing after
// Commit, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes dest with write, in place only once write succeeded.
func WriteFile(dest string, write func(io.Writer) error) error {
	f, err := Create(dest)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// Replace writes b to dest like WriteFile but without the sync, for many small files that are
// cheap to write again: a 4.x run directory has seven files per test, and syncing each made
// 2,000 tests take 20 s instead of well under one.
func Replace(dest string, b []byte) error {
	f, err := Create(dest)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.commit(false)
}
