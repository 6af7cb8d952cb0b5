//go:build unix

package e2e_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentv/action/action/actiontest"
)

// TestActionGivesFilesToWorkspaceOwner: a container action runs as root in a workspace that
// belongs to the runner's user; every file the Action writes there (reports and the response
// cache that actions/cache saves) must belong to that user, or later steps and the next
// checkout on a self-hosted runner cannot change them.
func TestActionGivesFilesToWorkspaceOwner(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as the container does")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	const uid, gid = 4242, 4343
	if err := os.Chown(ws, uid, gid); err != nil {
		t.Fatal(err)
	}
	res := runAction(t, ws, "event-pull_request.json", gh, map[string]string{"evals": "evals/*.yaml", "max-failures": "1",
		"comment": "off", "cache": "read-write", "cache-dir": "ci/answers", "results-dir": "out/reports"})
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stdout)
	}
	// The folders the Action made on the way to results-dir and cache-dir too.
	for _, dir := range []string{"out", "ci"} {
		n := 0
		err := filepath.WalkDir(filepath.Join(ws, dir), func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			n++
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			if st := fi.Sys().(*syscall.Stat_t); st.Uid != uid || st.Gid != gid {
				rel, _ := filepath.Rel(ws, p)
				t.Errorf("%s belongs to %d:%d, want the workspace owner %d:%d", rel, st.Uid, st.Gid, uid, gid)
			}
			return nil
		})
		if err != nil || n < 3 {
			t.Errorf("%s: %d files, %v", dir, n, err)
		}
	}
}

// TestActionCacheLinkInCheckout: a symbolic link committed in the checkout on the way to
// cache-dir (ci → a folder outside the workspace) is not followed: nothing is written there
// and nothing there changes owner; the run goes on without the cache and says why.
func TestActionCacheLinkInCheckout(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as the container does")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	const uid, gid = 4242, 4343
	if err := os.Chown(ws, uid, gid); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"answers/keep.txt": "not the workspace's"})
	if err := os.Symlink(outside, filepath.Join(ws, "ci")); err != nil {
		t.Fatal(err)
	}
	in := map[string]string{"evals": "evals/*.yaml", "max-failures": "1", "comment": "off", "cache": "read-write", "cache-dir": "ci/answers"}
	for _, run := range []string{"first", "second"} {
		res := runAction(t, ws, "event-pull_request.json", gh, in)
		if res.code != 0 || !strings.Contains(res.stdout, "symbolic link") {
			t.Errorf("%s run: exit %d; want 0 and a warning naming the symbolic link\n%s", run, res.code, res.stdout)
		}
		if !strings.Contains(res.summary, "0 of 5 calls from cache") {
			t.Errorf("%s run: want no answer from a cache reached through a link:\n%s", run, res.summary)
		}
	}
	n := 0
	err := filepath.WalkDir(outside, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		if st := statOf(t, p); st.Uid == uid || st.Gid == gid {
			t.Errorf("%s, outside the workspace, was given to the workspace owner", p)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("outside the workspace: %d files and folders, want the 3 there before (%v)", n, err)
	}
}

func statOf(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t)
}
