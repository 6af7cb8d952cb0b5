package jsruntime

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentv/action/sdk"
)

func TestMaterializeWritesSDK(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d, err := materialize(root)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(d.dir) != root || filepath.Base(d.dir) != contentHash() {
		t.Errorf("SDK folder %s, want %s/<content hash>", d.dir, root)
	}
	pkgs, err := sdk.Packages()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		err := fs.WalkDir(p.FS, ".", func(name string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			want, _ := fs.ReadFile(p.FS, name)
			got, err := os.ReadFile(filepath.Join(d.nodeModules(), p.Name, name))
			if err != nil || string(got) != string(want) {
				t.Errorf("%s/%s not written as embedded (err %v)", p.Name, name, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"register.mjs", "hooks.mjs", completeMarker} {
		if !exists(filepath.Join(d.dir, f)) {
			t.Errorf("%s missing from %s", f, d.dir)
		}
	}
}

func TestMaterializeReusesCompleteCopy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d, err := materialize(root)
	if err != nil {
		t.Fatal(err)
	}
	sentinel := filepath.Join(d.dir, "sentinel")
	if err := os.WriteFile(sentinel, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := materialize(root); err != nil {
		t.Fatal(err)
	}
	if !exists(sentinel) {
		t.Error("a complete copy was rewritten")
	}
}

func TestMaterializeReplacesUnfinishedCopy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	final := filepath.Join(root, contentHash())
	if err := os.MkdirAll(filepath.Join(final, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := materialize(root)
	if err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(d.nodeModules(), "@agentv", "eval", "package.json")) {
		t.Error("the unfinished copy was not replaced")
	}
}

func TestMaterializeConcurrently(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = materialize(root) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != contentHash() {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("cache holds %v, want only %s (no temporary folders left)", names, contentHash())
	}
}

func TestMaterializeUnwritable(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := materialize(filepath.Join(file, "sdk"))
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("materialize under a file: %v, want an error naming %s", err, file)
	}
}

// An unusable user cache folder falls back to a private temporary folder.
func TestPrepareSDKFallsBackToTemp(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", file)
	t.Setenv("HOME", file)
	t.Setenv("TMPDIR", tmp)
	prepared.Delete("")
	t.Cleanup(func() { prepared.Delete("") })
	d, err := prepareSDK("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.dir, tmp+string(filepath.Separator)) || !exists(d.register()) {
		t.Errorf("SDK at %s, want a complete copy under %s", d.dir, tmp)
	}
}
