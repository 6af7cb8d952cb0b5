// Package reference is what the tests comparing agentv with the programs users come from
// (test/agentv5, test/promptfoo) share: the binary under test, the differences they find, and
// the two lists that must account for each one — known-differences.yaml (kept on purpose,
// each with the doc that tells users why and the other program's source line) and
// pending.yaml (gaps waiting for a fix). An entry that matches no difference fails the test,
// so the lists stay true.
package reference

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/results"
)

// Main builds agentv into a temporary folder, sets *bin to it and runs the package's tests.
func Main(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "agentv-reference-")
	if err != nil {
		panic(err)
	}
	*bin = filepath.Join(dir, "agentv")
	build := exec.Command("go", "build", "-o", *bin, "./cmd/agentv")
	build.Dir = ModuleRoot()
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("could not build agentv: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ModuleRoot is the repository's root folder.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Difference is one field where agentv and the other program disagree; Group is the suite or
// config it was found in.
type Difference struct {
	Group, Test, Field, Ours, Theirs string
}

// Entry is an entry of known-differences.yaml or pending.yaml. Its group is named `suite`
// (AgentV 5 suites) or `config` (promptfoo configs); `*` in group, test or field matches any
// text.
type Entry struct {
	Suite  string `yaml:"suite"`
	Config string `yaml:"config"`
	Test   string `yaml:"test"`
	Field  string `yaml:"field"`
	Doc    string `yaml:"doc"`
	Source string `yaml:"source"`
	Why    string `yaml:"why"`
	used   bool
}

func (e *Entry) group() string { return cmp.Or(e.Suite, e.Config) }

func (e *Entry) String() string { return e.group() + "/" + e.Test + " " + e.Field }

func (e *Entry) matches(d Difference) bool {
	return glob(e.group(), d.Group) && glob(e.Test, d.Test) && glob(e.Field, d.Field)
}

// glob matches s against pat, where only `*` is special (field names hold brackets).
func glob(pat, s string) bool {
	parts := strings.Split(pat, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(s)
}

// ReadList reads a list file of the test's folder.
func ReadList(t *testing.T, name string) []*Entry {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var entries []*Entry
	if err := yaml.Unmarshal(raw, &entries); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i, e := range entries {
		if e.group() == "" || e.Test == "" || e.Field == "" || e.Why == "" {
			t.Fatalf("%s: entry %d needs suite (or config), test, field and why", name, i+1)
		}
	}
	return entries
}

// CheckKnown fails for a known difference without its source line, or whose doc is not a
// heading of doc (a file from the repository's root; an entry's doc is "path#anchor" or
// "#anchor").
func CheckKnown(t *testing.T, known []*Entry, doc string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ModuleRoot(), doc))
	if err != nil {
		t.Fatal(err)
	}
	anchors := headingAnchors(string(raw))
	for _, e := range known {
		_, anchor, _ := strings.Cut(e.Doc, "#")
		if e.Source == "" || !anchors[anchor] {
			t.Errorf("known-differences.yaml: %s needs source and a doc that is a heading of %s (%q)", e, doc, e.Doc)
		}
	}
}

// headingAnchors are the anchors GitHub gives the Markdown headings of doc.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		h := strings.TrimLeft(line, "#")
		if len(h) == len(line) || !strings.HasPrefix(h, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case r == ' ' || r == '-':
				b.WriteByte('-')
			case r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

// Account fails for every difference neither list accounts for and for every entry that
// matches none; pending ones are logged. them names the other program in messages.
func Account(t *testing.T, diffs []Difference, known, pending []*Entry, them string) {
	t.Helper()
	for _, d := range diffs {
		text := fmt.Sprintf("%s/%s %s: agentv %s, %s %s", d.Group, d.Test, d.Field, d.Ours, them, d.Theirs)
		if i := slices.IndexFunc(known, func(e *Entry) bool { return e.matches(d) }); i >= 0 {
			known[i].used = true
		} else if i = slices.IndexFunc(pending, func(e *Entry) bool { return e.matches(d) }); i >= 0 {
			pending[i].used = true
			t.Logf("pending: %s", text)
		} else {
			t.Error(text)
		}
	}
	for name, entries := range map[string][]*Entry{"known-differences.yaml": known, "pending.yaml": pending} {
		for _, e := range entries {
			if !e.used {
				t.Errorf("%s: %s matches no difference any more: remove it", name, e)
			}
		}
	}
}

// Num prints a score so that values within 1e-9 print the same: both programs add weighted
// scores in the order graders finish.
func Num(f float64) string {
	if math.Abs(f-math.Round(f)) < 1e-9 {
		return fmt.Sprint(math.Round(f))
	}
	return fmt.Sprintf("%.9f", f)
}

// Run runs `agentv eval file` in dir as the recordings were made (one case at a time, no
// cache) with env, and returns its case records, or what kept it from writing any.
func Run(t *testing.T, bin, dir, file string, env []string) ([]*results.Record, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results.jsonl")
	cmd := exec.Command(bin, "eval", file, "--workers", "1", "--cache=off", "--out", out)
	cmd.Dir = dir
	cmd.Env = env
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	_ = cmd.Run() // a failing gate exits non-zero; the records say what happened
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("no results file (%w); output:\n%s", err, output.String())
	}
	defer f.Close()
	var recs []*results.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var probe struct {
			Record string `json:"record"`
		}
		if json.Unmarshal(sc.Bytes(), &probe) == nil && probe.Record != "" {
			continue // run_start and other non-case lines
		}
		var r results.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		recs = append(recs, &r)
	}
	return recs, sc.Err()
}
