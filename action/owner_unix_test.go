//go:build unix

package action

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestChownToWorkspaceOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to change owners")
	}
	ws := t.TempDir()
	const uid, gid = 4242, 4343
	if err := os.Chown(ws, uid, gid); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(ws, "agentv-results")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(out, "junit.xml")
	if err := os.WriteFile(file, []byte("<x/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A nested path: the folder made on the way to it goes to the owner too.
	deep := filepath.Join(ws, "ci", "cache")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ChownToWorkspaceOwner(ws, "agentv-results", outside, "missing", deep); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{out, file, deep, filepath.Dir(deep)} {
		st := statT(t, p)
		if st.Uid != uid || st.Gid != gid {
			t.Errorf("%s owned by %d:%d, want %d:%d", p, st.Uid, st.Gid, uid, gid)
		}
	}
	if st := statT(t, outside); st.Uid == uid {
		t.Error("a path outside the workspace was changed")
	}
}

// TestChownDoesNotFollowLinks: a symbolic link committed in the checkout, on the way to a
// path or at it, must not take the change of owner outside the workspace.
func TestChownDoesNotFollowLinks(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to change owners")
	}
	ws, outside := t.TempDir(), t.TempDir()
	const uid, gid = 4242, 4343
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chown(ws, uid, gid))
	// What the links lead to: a folder with a file, as a cache folder would hold.
	must(os.MkdirAll(filepath.Join(outside, "cache", "v2"), 0o755))
	must(os.WriteFile(filepath.Join(outside, "cache", "v2", "entry.json"), nil, 0o644))
	must(os.Symlink(outside, filepath.Join(ws, "ci")))
	must(os.MkdirAll(filepath.Join(ws, "real"), 0o755))
	must(os.Symlink(filepath.Join(outside, "cache"), filepath.Join(ws, "real", "answers")))
	err := ChownToWorkspaceOwner(ws, "ci/cache", "real/answers/v2")
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("err = %v, want one naming the symbolic link", err)
	}
	_ = filepath.WalkDir(outside, func(p string, _ fs.DirEntry, err error) error {
		if err == nil {
			if st := statT(t, p); st.Uid == uid {
				t.Errorf("%s, outside the workspace, was given to the workspace owner", p)
			}
		}
		return err
	})
}

func statT(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t)
}
