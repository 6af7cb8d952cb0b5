package suite

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/suitegen"
)

// Every tree the fast path returns while the package's tests run is checked against the
// library's; TestMain fails the run on any difference.
var (
	verifyMu   sync.Mutex
	mismatches []string
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Benchmarks measure loading as the binary does it, without the check.
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		yamlFastVerify = func(src []byte, doc *yaml.Node) {
			if d := diffFastTree(src, doc); d != "" {
				verifyMu.Lock()
				mismatches = append(mismatches, fmt.Sprintf("source %q:\n%s", src, d))
				verifyMu.Unlock()
			}
		}
	}
	code := m.Run()
	if len(mismatches) > 0 {
		fmt.Fprintf(os.Stderr, "fast YAML trees differ from the library's:\n%s\n", strings.Join(mismatches, "\n"))
		code = 1
	}
	os.Exit(code)
}

// libraryDoc parses src the way parseYAML's library path does: one document, no error.
func libraryDoc(src []byte) (*yaml.Node, error) {
	dec, err := yaml.NewLoader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := dec.Load(&doc); err != nil {
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Load(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one document or a late error: %v", err)
	}
	return &doc, nil
}

// diffFastTree returns "" when the library reads src without error into the same tree as fast
// (comments aside), else what differs.
func diffFastTree(src []byte, fast *yaml.Node) string {
	lib, err := libraryDoc(src)
	if err != nil {
		return "fast path accepted what the library rejects: " + err.Error()
	}
	return diffNodes(lib, fast, "doc")
}

// diffNodes compares the fields the loader reads: everything but comments.
func diffNodes(a, b *yaml.Node, path string) string {
	if a == nil || b == nil {
		if a != b {
			return fmt.Sprintf("%s: one node is nil (library %v, fast %v)", path, a, b)
		}
		return ""
	}
	type fields struct {
		Kind         yaml.Kind
		Style        yaml.Style
		Tag, Value   string
		Anchor       string
		HasAlias     bool
		Line, Column int
		Children     int
	}
	fa := fields{a.Kind, a.Style, a.Tag, a.Value, a.Anchor, a.Alias != nil, a.Line, a.Column, len(a.Content)}
	fb := fields{b.Kind, b.Style, b.Tag, b.Value, b.Anchor, b.Alias != nil, b.Line, b.Column, len(b.Content)}
	if d := cmp.Diff(fa, fb); d != "" {
		return fmt.Sprintf("%s (-library +fast):\n%s", path, d)
	}
	for i := range a.Content {
		if d := diffNodes(a.Content[i], b.Content[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkFast asserts the fast-path property for src and reports whether the fast path took it.
func checkFast(t *testing.T, src []byte) bool {
	t.Helper()
	doc, ok := parseYAMLFast(src)
	if !ok {
		return false
	}
	if d := diffFastTree(src, doc); d != "" {
		t.Errorf("source %q:\n%s", src, d)
	}
	return true
}

// repoYAMLFiles lists the YAML files of the repository (fixtures, examples, workflows, bench
// output) plus the snippets under testdata/yamlfast.
func repoYAMLFiles(t testing.TB) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestYAMLFastRepoFiles(t *testing.T) {
	t.Parallel()
	files := repoYAMLFiles(t)
	taken := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if checkFast(t, src) {
			taken++
			// The same file with Windows line breaks reads the same way.
			if !checkFast(t, bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))) {
				t.Errorf("%s: fast path gave up on the file's CRLF form", f)
			}
		} else {
			t.Logf("library path: %s", f)
		}
	}
	// The good fixtures and the quickstart example are in the subset: a fast path that gave up
	// on everything would pass the property but not this.
	for _, f := range []string{"testdata/yamlfast/blocks.yaml", "testdata/yamlfast/scalars.yaml",
		"../examples/quickstart/evals/quickstart.yaml"} {
		src, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := parseYAMLFast(src); !ok {
			t.Errorf("%s: fast path gave up on a file in its subset", f)
		}
	}
	t.Logf("fast path took %d of %d YAML files", taken, len(files))
}

func TestYAMLFastSnippets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		fast bool // whether the fast path takes it
	}{
		{"mapping", "a: 1\nb: two\n", true},
		{"nested", "a:\n  b:\n    c: d\n  e: f\n", true},
		{"indentless sequence", "a:\n- x\n- y\nb: z\n", true},
		{"indented sequence", "a:\n  - x\n  -   y\n", true},
		{"compact mappings", "- a: 1\n  b: 2\n- c: 3\n", true},
		{"compact sequences", "- - a\n  - b\n- - c\n", true},
		{"empty values", "a:\nb: \nc: # note\nd:\n  -\n  - \n", true},
		{"empty at the end", "a:\n", true},
		{"comments", "# head\na: 1 # one\n\n  # indented\nb: 'x' # two\n# tail\n", true},
		{"quoted keys", "'a b': 1\n\"c\" : 2\n", true},
		{"single quotes", "a: 'it''s # not a comment'\nb: ''\n", true},
		{"double quotes", `a: "x\ty\n\"q\" \\ \/ \u00e9 \x41 \U0001F600"` + "\nb: \"\"\n", true},
		{"unicode columns", "é: x\nñame: 'y'\nk: ü: no\n", false},
		{"unicode values", "a: 日本\nb: ä\n", true},
		{"plain with colons", "url: http://x/y?a=b#frag\nt: 10:30\n", true},
		{"plain with indicators inside", "a: b - c [d] {e} & *f !g | h > i\n", true},
		{"literal", "a: |\n  line 1\n\n  line 3\n    more\nb: 1\n", true},
		{"literal strip keep", "a: |-\n  x\n\nb: |+\n  y\n\n\nc: |\n  z\n\n", true},
		{"folded", "a: >\n  one\n  two\n\n  three\n    indented\n  four\nb: >-\n  x\n  y\n", true},
		{"folded keep", "a: >+\n  one\n\n", true},
		{"block with comment header", "a: | # c\n  x\n", true},
		{"block in sequence", "- |\n  x\n- >\n  y\n  z\n", true},
		{"block in compact mapping", "- a: |\n    x\n  b: 1\n", true},
		{"block empty", "a: |\nb: |+\n\nc: >-\n", true},
		{"block leading empty lines", "a: |\n\n\n  x\n", true},
		{"block whitespace lines", "a: |\n  x\n   \n  y\n  \n \nb: 1\n", true},
		{"block more indented first line", "a: |\n    x\n  y\n", false},
		{"block at end", "a: |\n  x\n", true},
		{"block ends at comment", "a: |\n    x\n  # c\nb: 1\n", true},
		{"flow resolution", "a: [yes, no, on, off, y, n, 0x1F, 1e3, ~, '', \"\"]\n", true},
		{"tags resolved", strings.Join([]string{
			"- yes", "- no", "- on", "- off", "- true", "- False", "- TRUE", "- ~", "- null", "- Null",
			"- 0x1F", "- 0o17", "- 0b101", "- 007", "- 08", "- 1_000", "- +12", "- -3", "- 1e3", "- 1.5e-3",
			"- .inf", "- -.Inf", "- +.INF", "- .nan", "- .NaN", "- -0", "- -0.0", "- 0.", "- .5", "- +.5",
			"- 1.2.3", "- 9223372036854775808", "- 18446744073709551616", "- -9223372036854775809",
			"- 1e999", "- .1e999", "- 0x", "- 0_1", "- _1", "- 1__0", "- +0x10", "- -0x10", "- 0X10",
			"- +", "- -a", "- 12:30", "- 1,000", "- Yes", "- nULL", "- ~x", "- <x", "- 0xFFFFFFFFFFFFFFFF",
			"",
		}, "\n"), true},
		{"timestamp", "a: 2024-01-02\n", false},
		{"merge key", "a: &x {b: 1}\nc:\n  <<: *x\n", false},
		{"anchor", "a: &x 1\nb: *x\n", false},
		{"tag", "a: !!str 1\n", false},
		{"flow", "a: [1, 2]\n- [ x ,  'y' ]\n", false},
		{"flow sequence", "a: [1, 2]\nb: [ x ,  'y',\"z\" ] # c\nc: []\n", true},
		{"flow mapping", "a: {b: 1, 'c' : [d, {e: f}], \"g\": \"h\"}\nb: {}\n", true},
		{"flow in sequence", "- [a, b]\n- {role: user, content: \"hi\"}\n", true},
		{"flow trailing comma", "a: [1, 2, ]\n", false},
		{"flow on two lines", "a: [1,\n  2]\n", false},
		{"flow implicit pair", "a: [b: c]\n", false},
		{"flow key without value", "a: {b, c: d}\n", false},
		{"flow adjacent colon", "a: {b:c}\n", false},
		{"flow plain with colon", "a: [http://x]\n", false},
		{"flow then text", "a: [b] c\n", false},
		{"flow as key", "[a]: b\n", false},
		{"multi-line plain", "a: one\n  two\n", false},
		{"multi-line quoted", "a: 'one\n  two'\n", false},
		{"document marker", "---\na: 1\n", false},
		{"two documents", "a: 1\n---\nb: 2\n", false},
		{"directive", "%YAML 1.2\n---\na: 1\n", false},
		{"tab", "a:\t1\n", false},
		{"crlf", "a: 1\r\nb: |\r\n  x\r\n\r\n  y  \r\nc: >\r\n  p\r\n  q\r\nd: 'e' # f\r\n", true},
		{"mixed breaks", "a: 1\r\nb: 2\n", true},
		{"lone carriage return", "a: 1\rb: 2\n", false},
		{"bom", "\ufeffa: 1\n", false},
		{"no final newline", "a: 1", false},
		{"empty", "", false},
		{"comment only", "# nothing\n", false},
		{"root scalar", "hello\n", false},
		{"root sequence", "- a\n- b\n", true},
		{"bad indentation", "a:\n    b: 1\n  c: 2\n", false},
		{"sequence then key", "a:\n  - x\n  b: 1\n", false},
		{"key in value", "a: b: c\n", false},
		{"entry in value", "a: - b\n", false},
		{"complex key", "? a\n: b\n", false},
		{"explicit indentation", "a: |2\n   x\n", false},
		{"duplicate keys", "a: 1\na: 2\n", true},
		{"long key", strings.Repeat("k", 600) + ": v\n", false},
		{"deep", strings.Repeat("- ", 150) + "x\n", false},
		{"quoted then text", "a: 'x' y\n", false},
		{"quoted then comment", "a: 'x'#c\n", false},
		{"escaped line break", "a: \"x\\\n  y\"\n", false},
		{"unusual escape", `a: "\N"` + "\n", false},
		{"surrogate escape", `a: "\ud800"` + "\n", false},
		{"control character", "a: \x01\n", false},
		{"nel", "a: x\u0085y\n", false},
		{"plain starting with dash", "a: -x\nb: --\n", true},
		{"key with trailing spaces", "a   : 1\n", true},
		{"key ending in colon", "a:: 1\n", true},
		{"hash in plain", "a: b#c\n", true},
		{"sequence under sequence item", "-\n  - a\n-\n  b: 1\n", true},
		{"value on next line", "a:\n  text\nb:\n  'q'\n", true},
		{"over-indented after value", "a: 1\n   b: 2\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := checkFast(t, []byte(tt.src)); got != tt.fast {
				t.Errorf("fast path took it: %v, want %v", got, tt.fast)
			}
		})
	}
}

func FuzzYAMLFast(f *testing.F) {
	for _, p := range repoYAMLFiles(f) {
		src, err := os.ReadFile(p)
		if err == nil && len(src) < 64<<10 {
			f.Add(src)
		}
	}
	for _, s := range []string{"a: |\n  x\n\n  y\n", "- a: >-\n    b\n\n    c\n  d: 'e'\n", "a:\n- b\n-\n  c: \"\\u00e9\"\n"} {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		f.Add(randomYAML(r))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkFast(t, src)
		checkLazy(t, src)
	})
}

// loadBoth loads path through the fast path and through the library only.
func loadBoth(t *testing.T, path string) (fast, lib *Suite) {
	t.Helper()
	fast = Load(path, LoadOptions{Cwd: filepath.Dir(path)})
	yamlLibraryOnly = true
	defer func() { yamlLibraryOnly = false }()
	lib = Load(path, LoadOptions{Cwd: filepath.Dir(path)})
	return fast, lib
}

// TestYAMLFastLoadEquivalence loads generated suites and the repository's eval fixtures both
// ways: cases and diagnostics must be identical. Not parallel: it flips yamlLibraryOnly.
func TestYAMLFastLoadEquivalence(t *testing.T) {
	var paths []string
	for _, dir := range []string{"testdata/good", "testdata/bad", "testdata/yamlfast"} {
		for _, pat := range []string{"*.yaml", "*.yml", "*.jsonl"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			paths = append(paths, m...)
		}
	}
	genDir := t.TempDir()
	for _, mode := range []string{"fa", "llm", "code_py", "none"} {
		dir, err := suitegen.Write(genDir, mode, 50)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "eval.yaml")
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := parseYAMLFast(src); !ok {
			t.Errorf("%s: generated suite left the fast path", p)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		fast, lib := loadBoth(t, abs)
		if d := cmp.Diff(lib.Diagnostics, fast.Diagnostics); d != "" {
			t.Errorf("%s: diagnostics differ (-library +fast):\n%s", p, d)
		}
		if d := cmp.Diff(lib.Cases, fast.Cases, cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".Suite"
		}, cmp.Ignore())); d != "" {
			t.Errorf("%s: cases differ (-library +fast):\n%s", p, d)
		}
		if d := cmp.Diff(lib.Evaluators, fast.Evaluators); d != "" {
			t.Errorf("%s: suite evaluators differ (-library +fast):\n%s", p, d)
		}
	}
}

// expandLazy builds every lazy list of a lazily parsed tree in place, for comparison with the
// eager parse.
func expandLazy(n *yaml.Node, z *yfLazy) {
	if l := z.list(n); l != nil {
		for k := range l.items {
			n.Content = append(n.Content, z.item(l, k))
		}
	}
	for _, c := range n.Content {
		expandLazy(c, z)
	}
}

// checkLazy asserts that the lazy parse takes src exactly when the eager one does and that its
// lists, once built, give the eager tree.
func checkLazy(t *testing.T, src []byte) {
	t.Helper()
	eager, ok := parseYAMLFast(src)
	lazy, z, lok := parseYAMLFastLazy(bytes.Clone(src))
	if ok != lok {
		t.Fatalf("source %q: eager parse ok %v, lazy %v", src, ok, lok)
	}
	if !ok {
		return
	}
	expandLazy(lazy, z)
	if d := diffNodes(eager, lazy, "doc"); d != "" {
		t.Errorf("source %q: lazy tree differs (-eager +lazy):\n%s", src, d)
	}
}

func TestYAMLFastLazy(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"evalcases:\n- id: a\n  cases:\n  - x\n- id: b\nz: 1\n",
		"cases:\n  - a\n  -\n  - - b\n    - c\n  - |\n    text\neval_cases: [a]\n",
		"'evalcases':\n  - x: 1\n    evalcases:\n      - y\n",
		"a:\n  evalcases:\n    - x\n",
	} {
		checkLazy(t, []byte(src))
	}
	for _, f := range repoYAMLFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkLazy(t, src)
	}
}

// BenchmarkLoadYAML5000 loads a 5,000-case field_accuracy suite through the fast path (lazy
// case list) and through the library alone, reporting the heap the suite keeps and the peak
// live heap while loading.
func BenchmarkLoadYAML5000(b *testing.B) {
	path := genSuite(b, "fa", 5000)
	for _, mode := range []struct {
		name    string
		library bool
	}{{"fast", false}, {"library", true}} {
		b.Run(mode.name, func(b *testing.B) {
			yamlLibraryOnly = mode.library
			defer func() { yamlLibraryOnly = false }()
			benchLoad(b, path, 5000)
		})
	}
}

// Pieces of random documents: scalars as eval files write them, with the corners of tag
// resolution, quoting and flow collections.
var (
	randKeys    = []string{"id", "input", "key two", "'q k'", "\"d\"", "1", "true", "a:b", "é", "evalcases", "cases", "x#y"}
	randScalars = []string{"foo", "foo bar", "yes", "on", "1e3", "0x1F", "0o17", "007", "08", "1_000", "-0", ".5", "+.inf",
		"~", "null", "true", "-x", "a:b", "a #c", "'s''q'", "'a: b'", "\"e\\n\\u00e9\\x41\"", "[a, 'b', 1]",
		"{k: v, n: [1]}", "[]", "{}", "é", "12:30", "9223372036854775808", "0b101", ".1e999", "- x", "x:", "[-1, -a]",
		"'multi", "\"\\N\"", "&a x", "*a", "!!str x", "2024-01-02", "-", "%x", "{a}"}
	randHeaders = []string{"|", "|-", "|+", ">", ">-", ">+", "| # c", "|2", "|#"}
)

// randomYAML builds a document from a random tree written as eval files are (block mappings
// and sequences, compact entries, block scalars with blank and space-only lines), with now and
// then a misplaced indentation or an odd piece, so that most documents are in the subset and
// the rest probe its edges.
func randomYAML(r *rand.Rand) []byte {
	var b strings.Builder
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	jitter := func(n int) int {
		if r.IntN(40) == 0 {
			return max(0, n+r.IntN(3)-1)
		}
		return n
	}
	var node func(indent, depth int, inline bool)
	scalar := func(indent int) {
		if r.IntN(6) > 0 {
			b.WriteString(pick(randScalars))
			if r.IntN(8) == 0 {
				b.WriteString(" # note")
			}
			b.WriteByte('\n')
			return
		}
		b.WriteString(pick(randHeaders) + "\n")
		in := indent + 1 + r.IntN(3)
		for range r.IntN(5) {
			switch r.IntN(5) {
			case 0:
				b.WriteString("\n")
			case 1:
				b.WriteString(strings.Repeat(" ", r.IntN(in+3)) + "\n")
			default:
				b.WriteString(strings.Repeat(" ", jitter(in)+r.IntN(2)*r.IntN(3)) + pick(randScalars) + "\n")
			}
		}
	}
	node = func(indent, depth int, inline bool) {
		kind := r.IntN(3)
		if depth > 3 {
			kind = 2
		}
		pad := func(first bool) {
			if !(first && inline) {
				b.WriteString(strings.Repeat(" ", jitter(indent)))
			}
		}
		switch kind {
		case 0: // mapping
			for i := range 1 + r.IntN(3) {
				pad(i == 0)
				b.WriteString(pick(randKeys) + ":")
				switch r.IntN(4) {
				case 0: // nested on the next lines
					b.WriteString("\n")
					if r.IntN(2) == 0 && depth < 3 { // a sequence at the mapping's indentation
						node(indent, depth+1, false)
					} else {
						node(indent+2, depth+1, false)
					}
				case 1: // empty
					if r.IntN(3) == 0 {
						b.WriteString(" # c")
					}
					b.WriteString("\n")
				default:
					b.WriteString(" ")
					scalar(indent)
				}
			}
		case 1: // sequence
			for i := range 1 + r.IntN(3) {
				pad(i == 0)
				b.WriteString("-")
				switch r.IntN(4) {
				case 0:
					b.WriteString(" ")
					node(indent+2, depth+1, true) // compact
				case 1:
					b.WriteString("\n")
					if r.IntN(2) == 0 {
						node(indent+2, depth+1, false)
					}
				default:
					b.WriteString(" ")
					scalar(indent)
				}
			}
		default:
			pad(true)
			scalar(indent)
		}
		if r.IntN(10) == 0 {
			b.WriteString(strings.Repeat(" ", r.IntN(6)) + "# comment\n")
		}
	}
	if r.IntN(5) == 0 {
		b.WriteString("# head\n")
	}
	node(0, 0, false)
	return []byte(b.String())
}

var randomDocs = flag.Int("yamlfast.docs", 20000, "random documents TestYAMLFastRandom compares")
var randomSeed = flag.Uint64("yamlfast.seed", 1, "seed of TestYAMLFastRandom")

func TestYAMLFastRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(*randomSeed, 2))
	taken := 0
	n := *randomDocs
	for range n {
		src := randomYAML(r)
		if checkFast(t, src) {
			taken++
		}
		checkLazy(t, src)
		if r.IntN(4) == 0 {
			checkFast(t, bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		}
		if t.Failed() {
			return
		}
	}
	// Enough of them must be in the subset for the comparison to mean something.
	if taken < n/20 {
		t.Errorf("fast path took only %d of %d random documents", taken, n)
	}
	t.Logf("fast path took %d of %d random documents", taken, n)
}
