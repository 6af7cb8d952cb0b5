package action

import (
	"path/filepath"
	"strings"
)

// WorkspacePath returns p relative to the workspace, with forward slashes, as outputs and
// annotations need it: the runner mounts the workspace at a different path inside a
// container action, so only workspace-relative paths mean the same thing to later host
// steps (GITHUB_WORKSPACE is /github/workspace inside the container). A relative p is taken relative to wd (the
// working directory; "" means the workspace itself). A path outside the workspace, or any
// path when workspace is "", is returned cleaned but otherwise unchanged.
func WorkspacePath(workspace, wd, p string) string {
	if p == "" {
		return ""
	}
	abs := p
	if !filepath.IsAbs(p) {
		switch {
		case wd != "":
			abs = filepath.Join(wd, p)
		case workspace != "":
			abs = filepath.Join(workspace, p)
		}
	}
	if workspace == "" || !filepath.IsAbs(abs) {
		return filepath.ToSlash(filepath.Clean(abs))
	}
	rel, err := filepath.Rel(workspace, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(filepath.Clean(abs))
	}
	return filepath.ToSlash(rel)
}
