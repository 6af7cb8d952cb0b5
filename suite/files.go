package suite

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentv/action/internal/safefile"
)

// FindRepoRoot returns the repository root for an eval file in dir: the nearest ancestor of dir
// (dir included) that holds a `.git` entry, else workspace (GITHUB_WORKSPACE) when set, else cwd.
func FindRepoRoot(dir, workspace, cwd string) string {
	for d, err := filepath.Abs(dir); err == nil; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	p := cmp.Or(workspace, cwd)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// AbsPath is p from dir when relative, cleaned.
func AbsPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// DisplayPath shows abs relative to cwd when it lies inside cwd, else absolute.
func DisplayPath(abs, cwd string) string {
	if rel, ok := safefile.RelWithin(abs, cwd); ok && cwd != "" {
		return rel
	}
	return abs
}

// upTo lists dir and its parents up to root when dir lies within root, else dir alone.
func upTo(dir, root string) []string {
	dirs := []string{dir}
	for d := dir; d != root && safefile.Within(d, root) && filepath.Dir(d) != d; {
		d = filepath.Dir(d)
		dirs = append(dirs, d)
	}
	return dirs
}

// searchRoots lists where relative file references are looked up, as in AgentV 2.5: the eval
// file's directory, each parent up to and including the repo root, then the working directory.
func searchRoots(dir, repoRoot, cwd string) []string {
	roots := append(upTo(dir, repoRoot), repoRoot, cwd)
	out := roots[:0]
	for _, r := range roots {
		if r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// FileRef is the outcome of resolving one file reference.
type FileRef struct {
	Abs     string   // "" when not found
	tried   []string // absolute candidates, in order
	refused string   // why the first candidate that exists but is not a file/directory was passed over
}

// Resolve looks value up as a file or a directory, once per value (every case of a file shares
// the search roots).
func (l *Reader) Resolve(value string, wantDir bool) *FileRef {
	key := value
	if wantDir {
		key = "\x00dir\x00" + value
	}
	if r, ok := l.refs[key]; ok {
		return r
	}
	r := findFile(l.roots, value, wantDir, l.Cwd)
	l.refs[key] = r
	return r
}

// findFile looks value up in roots: an absolute path first as it is, then below each root.
func findFile(roots []string, value string, wantDir bool, cwd string) *FileRef {
	r := &FileRef{}
	var cands []string
	if filepath.IsAbs(value) {
		cands = append(cands, filepath.Clean(value))
	}
	trimmed := strings.TrimLeft(value, `/\`)
	for _, root := range roots {
		cands = append(cands, filepath.Join(root, trimmed))
	}
	for _, c := range cands {
		if slices.Contains(r.tried, c) {
			continue
		}
		r.tried = append(r.tried, c)
		// Only regular files count: a device or FIFO (/dev/stdin) would block or never end.
		fi, err := os.Stat(c)
		if err != nil {
			continue
		}
		if wantDir && fi.IsDir() || !wantDir && fi.Mode().IsRegular() {
			r.Abs = c
			break
		}
		if r.refused == "" && !wantDir && !fi.IsDir() {
			r.refused = fmt.Sprintf("%s is %s, not a regular file", DisplayPath(c, cwd), safefile.Describe(fi.Mode()))
		}
	}
	return r
}

// TriedList renders the places tried for a missing file, for messages.
func (l *Reader) TriedList(r *FileRef) string {
	parts := make([]string, len(r.tried))
	for i, t := range r.tried {
		parts[i] = DisplayPath(t, l.Cwd)
	}
	s := strings.Join(parts, ", ")
	if r.refused != "" {
		s += "; " + r.refused
	}
	return s
}

// readText returns a file's content with CRLF as LF, read once per load so that the cases
// naming it share one string. safefile never blocks on a FIFO swapped in after resolve.
func (l *Reader) readText(abs string) (string, error) {
	if s, ok := l.texts[abs]; ok {
		return s, nil
	}
	b, err := safefile.ReadFile(abs, safefile.LimitContent)
	if err != nil {
		return "", err
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	l.texts[abs] = s
	return s, nil
}
