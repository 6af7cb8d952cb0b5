package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addCorpus seeds a fuzz target with the testdata files of the given extension.
func addCorpus(f *testing.F, ext string) {
	for _, dir := range []string{"testdata/bad", "testdata/good"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
}

// checkInvariants holds for any input: a suite is returned, loaded cases are complete and
// unique, and every diagnostic names a file.
func checkInvariants(t *testing.T, s *Suite) {
	t.Helper()
	if s == nil {
		t.Fatal("Load returned nil")
	}
	ids := map[string]bool{}
	for _, c := range s.Cases {
		if c.ID == "" || len(c.Input) == 0 || c.Suite != s {
			t.Fatalf("incomplete case %+v", c)
		}
		if ids[c.ID] {
			t.Fatalf("duplicate id %q loaded", c.ID)
		}
		ids[c.ID] = true
		for _, e := range c.Evaluators {
			if e == nil || e.Name == "" || e.Type == "" {
				t.Fatalf("incomplete evaluator %+v", e)
			}
		}
	}
	for _, d := range s.Diagnostics {
		if d.File == "" || d.Message == "" {
			t.Fatalf("diagnostic without file or message: %+v", d)
		}
	}
}

func FuzzLoadYAML(f *testing.F) {
	addCorpus(f, ".yaml")
	f.Add([]byte("evalcases:\n  - &a {id: x, input: [*a]}\n"))
	f.Add([]byte("a: &a [*a, *a]\nevalcases: [{id: x, input: hi, expected_output: *a}]\n"))
	f.Add([]byte("m: &m {<<: [*m, *m, *m, *m, *m, *m, *m, *m], k: v}\nevalcases: [{<<: [*m, *m, *m], id: x, input: hi, expected_output: *m}]\n"))
	f.Add([]byte(aliasBomb(7, 16))) // expands past the JSON size limit: reported, not loaded
	f.Add([]byte("evalcases:\n  - id: x\n    input: hi\n    evaluators: [{type: llm_judge, prompt: \"{{ question }}\"}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "eval.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, Load(path, LoadOptions{Cwd: dir, Workspace: dir}))
	})
}

func FuzzLoadJSONL(f *testing.F) {
	addCorpus(f, ".jsonl")
	f.Add([]byte(`{"id":"a","input":"hi"}` + "\n" + `{"id":"a","input":[{"role":"user","content":[{"type":"file","value":"/etc/hostname"}]}]}`))
	f.Add([]byte(`{"id":"b","input":"\ud800","expected_output":{"x":[1e400,-0,0.1]}}`))
	f.Add([]byte(" { \"id\" : \"é \\ud83d\\ude00\" , \"input\" : \"\\u0000\xff\" , \"id\" : 1 } # c\n{'id': 1}\n{\"a\":1,}\n" +
		strings.Repeat("[", 600) + strings.Repeat("]", 600)))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "set.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, Load(path, LoadOptions{Cwd: dir, Workspace: dir}))
	})
}

// aliasBomb builds a YAML file whose expected_output expands to width^levels items.
func aliasBomb(levels, width int) string {
	var b strings.Builder
	prev := "x"
	for i := range levels {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range width {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(prev)
		}
		b.WriteString("]\n")
		prev = fmt.Sprintf("*l%d", i)
	}
	fmt.Fprintf(&b, "evalcases: [{id: x, input: hi, expected_output: %s}]\n", prev)
	return b.String()
}

func TestAliasBombIsRejected(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, aliasBomb(7, 16))
	_ = requireDiag(t, s.Diagnostics, SeverityError, "too large")
	if len(s.Cases) != 0 {
		t.Errorf("the case must not load")
	}
}
