package targets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDotenvParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     map[string]string
	}{
		{"plain", "A=1\nB = two \n", map[string]string{"A": "1", "B": "two"}},
		{"comments and blanks", "# c\n\n  # indented\nA=x # trailing\nB=y#kept\n", map[string]string{"A": "x", "B": "y#kept"}},
		{"export", "export A=1\nexport\tB=2\nexported=3\n", map[string]string{"A": "1", "B": "2", "exported": "3"}},
		{"single quotes literal", `A='x # not a comment \n $HOME'`, map[string]string{"A": `x # not a comment \n $HOME`}},
		{"double quotes escapes", `A="line1\nline2 \"q\" \\ \t"  # c`, map[string]string{"A": "line1\nline2 \"q\" \\ \t"}},
		{"multi-line quoted", "A=\"first\nsecond\"\nB=3\n", map[string]string{"A": "first\nsecond", "B": "3"}},
		{"unterminated quote runs to end", "A='open\nB=2\n", map[string]string{"A": "open\nB=2"}},
		{"empty values", "A=\nB=''\nC=\"\"\n", map[string]string{"A": "", "B": "", "C": ""}},
		{"crlf and bom", "\xef\xbb\xbfA=1\r\nB=\"x\"\r\n", map[string]string{"A": "1", "B": "x"}},
		{"later wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"not assignments", "just words\n=novalue\n1A=x\nA B=c\n", map[string]string{}},
		{"value with equals", "URL=http://x/?a=b&c=d\n", map[string]string{"URL": "http://x/?a=b&c=d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, dotenvParse([]byte(tc.in))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadEnvPrecedence(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	evalDir := filepath.Join(repo, "suites", "smoke")
	if err := os.MkdirAll(evalDir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(rel, body string) {
		if err := os.WriteFile(filepath.Join(repo, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("../.env", "F=above-the-repo\n") // never read
	write(".env", "A=root\nB=root\nC=root\nD=root\n")
	write("suites/.env", "A=suites\nB=suites\n")
	write("suites/smoke/.env", "A=smoke\n")
	env := newEnv([]string{"B=real", "E=real-only", "B=second-ignored"}, evalDir, repo)
	for _, tc := range []struct{ name, want string }{
		{"A", "smoke"}, // the nearest .env wins
		{"B", "real"},  // the real environment always wins
		{"C", "root"},
		{"E", "real-only"},
	} {
		if got, ok := env(tc.name); !ok || got != tc.want {
			t.Errorf("%s = %q (%v), want %q", tc.name, got, ok, tc.want)
		}
	}
	for _, name := range []string{"MISSING", "F"} {
		if v, ok := env(name); ok {
			t.Errorf("%s = %q", name, v)
		}
	}
	// No eval dir: the real environment only.
	if _, ok := newEnv(nil, "", repo)("A"); ok {
		t.Error("read .env without an eval dir")
	}
	// An edited file is read again (size changes).
	write("suites/smoke/.env", "A=smoke-edited\n")
	if got, _ := newEnv(nil, evalDir, repo)("A"); got != "smoke-edited" {
		t.Errorf("after edit A = %q", got)
	}
}

func FuzzDotenvParse(f *testing.F) {
	f.Add([]byte("A=1\nexport B='x'\nC=\"a\\\"b\nc\"\n# x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for k := range dotenvParse(data) {
			if !dotenvKey.MatchString(k) {
				t.Errorf("invalid key %q", k)
			}
		}
	})
}

// newEnv is LoadEnv's lookup, its error left out.
func newEnv(environ []string, evalDir, repoRoot string) LookupEnv {
	env, _ := LoadEnv(environ, evalDir, repoRoot)
	return env
}
