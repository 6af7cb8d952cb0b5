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

	"github.com/agentv/action/internal/safefile"
)

// ChownToWorkspaceOwner gives the files and folders at paths (recursively), and the folders
// between the workspace and each path (which the action may have made on the way), to the
// owner of the workspace. A container action runs as root, and root-owned files in the
// workspace break later steps and the next checkout on self-hosted runners (actions/runner#434,
// #1282). It does nothing unless running as root, and skips paths outside the workspace and
// paths reached through a symbolic link (an error says which).
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
		// A symbolic link on the way (one committed in the checkout) would take the change of
		// owner to whatever it points at, outside the workspace: such a path is left alone.
		if err := linkBelow(workspace, rel); err != nil {
			errs = append(errs, err)
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

// linkBelow returns an error when a folder or file on the way from the workspace to rel, rel
// itself included, is a symbolic link. The workspace itself is the runner's and is trusted.
func linkBelow(workspace, rel string) error {
	return safefile.WalkDown(workspace, rel, func(d string, fi fs.FileInfo) error {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: its files are not given to the workspace owner", d)
		}
		return nil
	})
}
