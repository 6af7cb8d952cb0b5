//go:build unix

package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ChownToWorkspaceOwner gives the files and folders at paths (recursively), and the folders
// between the workspace and each path (which the action may have made on the way), to the
// owner of the workspace. A container action runs as root, and root-owned files in the
// workspace break later steps and the next checkout on self-hosted runners (actions/runner#434,
// #1282). It does nothing unless running as root, and skips paths outside the workspace.
func ChownToWorkspaceOwner(workspace string, paths ...string) error {
	if workspace == "" || os.Geteuid() != 0 {
		return nil
	}
	fi, err := os.Stat(workspace)
	if err != nil {
		return fmt.Errorf("could not read the workspace owner: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil
	}
	uid, gid := int(st.Uid), int(st.Gid)
	var errs []error
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		rel, err := filepath.Rel(workspace, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		for up := filepath.Dir(rel); up != "." && up != string(filepath.Separator); up = filepath.Dir(up) {
			if err := os.Lchown(filepath.Join(workspace, up), uid, gid); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		err = filepath.WalkDir(p, func(path string, _ fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			return os.Lchown(path, uid, gid)
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("could not give files to the workspace owner: %w", err)
	}
	return nil
}
