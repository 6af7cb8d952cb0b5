//go:build unix

package action

import (
	"os"
	"path/filepath"
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

func statT(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t)
}
