package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
)

// entryPath is where the entry of ask(…, q) lives in a store on dir.
func entryPath(t *testing.T, s *Store, c *counter, q string) string {
	t.Helper()
	key, _ := Key(c.t, &providers.Request{EvalID: "c1", Question: q}, 0)
	return s.path(key)
}

// filesUnder lists the regular files below dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A cache folder comes with a checkout, so a pull request decides what is in it: a symbolic
// link anywhere in it must neither take a write outside nor be read as an entry.
func TestSymbolicLinksInTheFolder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// plant makes dir hostile; outside is a folder elsewhere, valid a whole entry of "q".
		plant func(t *testing.T, dir, entry, outside string, valid []byte)
	}{
		{"folder itself", func(t *testing.T, dir, _, outside string, _ []byte) {
			must(t, os.Remove(dir))
			must(t, os.Symlink(outside, dir))
		}},
		{"version folder", func(t *testing.T, dir, _, outside string, _ []byte) {
			must(t, os.Symlink(outside, filepath.Join(dir, versionDir)))
		}},
		{"shard folder", func(t *testing.T, dir, entry, outside string, _ []byte) {
			must(t, os.MkdirAll(filepath.Join(dir, versionDir), 0o755))
			must(t, os.Symlink(outside, filepath.Dir(entry)))
		}},
		{"entry", func(t *testing.T, _, entry, outside string, valid []byte) {
			// A whole, valid entry outside the folder, linked in: still a miss.
			must(t, os.WriteFile(filepath.Join(outside, "valid.json"), valid, 0o644))
			must(t, os.MkdirAll(filepath.Dir(entry), 0o755))
			must(t, os.Symlink(filepath.Join(outside, "valid.json"), entry))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A whole entry of "q", made in a folder of its own.
			src := t.TempDir()
			c := newCounter(t)
			ask(t, wrap(t, Open(Options{Dir: src, Mode: ReadWrite}), c), "q")
			valid, err := os.ReadFile(entryPath(t, Open(Options{Dir: src, Mode: ReadWrite}), c, "q"))
			must(t, err)

			dir, outside := t.TempDir(), t.TempDir()
			s := Open(Options{Dir: dir, Mode: ReadWrite, Logf: func(string, ...any) {}})
			tc.plant(t, dir, entryPath(t, s, c, "q"), outside, valid)
			before := filesUnder(t, outside)
			resp := ask(t, wrap(t, s, c), "q")
			if c.calls.Load() != 2 || resp.Text != "answer to q" {
				t.Errorf("calls = %d: an entry reached through a symbolic link must be a miss", c.calls.Load())
			}
			if after := filesUnder(t, outside); len(after) != len(before) {
				t.Errorf("the cache wrote outside its folder: %v", after)
			}
			if s.Warning() == "" || !strings.Contains(s.Warning(), "symbolic link") {
				t.Errorf("warning = %q, want one naming the symbolic link", s.Warning())
			}
		})
	}
}

// An answer that holds one of the run's secrets is not stored: the key leaves credentials
// out, so a later run with the secret rotated would replay it unmasked.
func TestAnswersWithSecretsAreNotStored(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789abcdef"
	red := &redact.Redactor{}
	red.Add(secret)
	for _, q := range []string{"the key is " + secret, "split " + secret[:10] + "\n" + secret[10:]} {
		dir := t.TempDir()
		c := newCounter(t)
		p := wrap(t, Open(Options{Dir: dir, Mode: ReadWrite, Redactor: red}), c)
		ask(t, p, q)
		if files := filesUnder(t, dir); len(files) != 0 {
			t.Errorf("%q: stored %v", q, files)
		}
		ask(t, p, q)
		if c.calls.Load() != 2 {
			t.Errorf("%q: calls = %d, want 2 (never answered from the cache)", q, c.calls.Load())
		}
	}
	// Answers without a secret are stored as usual.
	dir := t.TempDir()
	c := newCounter(t)
	ask(t, wrap(t, Open(Options{Dir: dir, Mode: ReadWrite, Redactor: red}), c), "plain")
	if files := filesUnder(t, dir); len(files) != 1 {
		t.Errorf("plain answer: stored %v, want 1 entry", files)
	}
}

// A file far larger than any entry is a miss without being read whole.
func TestOversizedEntryIsAMiss(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newCounter(t)
	s := Open(Options{Dir: dir, Mode: ReadWrite})
	entry := entryPath(t, s, c, "q")
	must(t, os.MkdirAll(filepath.Dir(entry), 0o755))
	f, err := os.Create(entry)
	must(t, err)
	must(t, f.Truncate(entryLimit+1)) // sparse: no disk used
	must(t, f.Close())
	if key, _ := Key(c.t, &providers.Request{EvalID: "c1", Question: "q"}, 0); s.lookup(key) != nil {
		t.Error("an oversized entry answered")
	}
	if resp, err := wrap(t, s, c).Invoke(accepting(), &providers.Request{EvalID: "c1", Question: "q"}); err != nil || resp.Text != "answer to q" || c.calls.Load() != 1 {
		t.Errorf("calls = %d, err %v", c.calls.Load(), err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A link committed in the checkout above the cache folder (cache-dir: build/cache, with build
// a link) must not take entries outside either: every folder from the workspace down is
// checked. Folders above the workspace are the runner's and may be links.
func TestSymbolicLinkAboveTheFolder(t *testing.T) {
	t.Parallel()
	// A whole entry of "q", made in a folder of its own.
	src := t.TempDir()
	c := newCounter(t)
	ask(t, wrap(t, Open(Options{Dir: src, Mode: ReadWrite}), c), "q")
	valid, err := os.ReadFile(entryPath(t, Open(Options{Dir: src, Mode: ReadWrite}), c, "q"))
	must(t, err)

	for _, tc := range []struct {
		name      string
		link, rel string // the link and the cache folder, relative to the workspace
	}{
		{"parent", "link", "link/cache"},
		{"grandparent", "link", "link/deep/cache"},
		{"in a real folder", "real/link", "real/link/cache"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top, outside := t.TempDir(), t.TempDir()
			// The workspace is reached through a link of the runner's: that one is fine.
			ws := filepath.Join(top, "ws")
			must(t, os.Mkdir(filepath.Join(top, "real-ws"), 0o755))
			must(t, os.Symlink(filepath.Join(top, "real-ws"), ws))
			linkAt := filepath.Join(ws, tc.link)
			must(t, os.MkdirAll(filepath.Dir(linkAt), 0o755))
			must(t, os.Symlink(outside, linkAt))
			dir := filepath.Join(ws, tc.rel)
			s := Open(Options{Dir: dir, Base: ws, Mode: ReadWrite, Logf: func(string, ...any) {}})
			// A whole entry waiting where the link leads: still a miss.
			planted := strings.Replace(entryPath(t, s, c, "q"), linkAt, outside, 1)
			must(t, os.MkdirAll(filepath.Dir(planted), 0o755))
			must(t, os.WriteFile(planted, valid, 0o644))
			before := filesUnder(t, outside)
			calls := c.calls.Load()
			resp := ask(t, wrap(t, s, c), "q")
			if c.calls.Load() != calls+1 || resp.Text != "answer to q" {
				t.Errorf("calls = %d: an entry reached through a symbolic link must be a miss", c.calls.Load()-calls)
			}
			if after := filesUnder(t, outside); len(after) != len(before) {
				t.Errorf("the cache wrote outside the workspace: %v", after)
			}
			if !strings.Contains(s.Warning(), "symbolic link") || !strings.Contains(s.Warning(), linkAt) {
				t.Errorf("warning = %q, want one naming %s", s.Warning(), linkAt)
			}
		})
	}

	// The same folder without a link works, though the workspace is reached through one.
	top := t.TempDir()
	must(t, os.Mkdir(filepath.Join(top, "real-ws"), 0o755))
	ws := filepath.Join(top, "ws")
	must(t, os.Symlink(filepath.Join(top, "real-ws"), ws))
	s := Open(Options{Dir: filepath.Join(ws, "a", "cache"), Base: ws, Mode: ReadWrite})
	calls := c.calls.Load()
	ask(t, wrap(t, s, c), "q")
	ask(t, wrap(t, s, c), "q")
	if c.calls.Load() != calls+1 || s.Warning() != "" {
		t.Errorf("calls = %d, warning %q; want 1 call and the answer stored", c.calls.Load()-calls, s.Warning())
	}
}
