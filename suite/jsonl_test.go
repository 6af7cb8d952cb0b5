package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v4"
)

func TestJSONL(t *testing.T) {
	t.Parallel()
	s := loadTree(t, map[string]string{
		"evals/set.jsonl": "\ufeff{\"id\":\"a\",\"input\":\"hi\",\"expected_output\":{\"z\":1,\"a\":[true,null,1.0e2]}}\r\n" +
			"   \n" +
			"{\"id\":\"b\",\"question\":\"q\",\"execution\":{\"target\":\"t2\"},\"evaluators\":[{\"type\":\"code_judge\",\"script\":[\"node\",\"j.mjs\"]}]}\n" +
			"{\"id\":\"c\",\"input\":\"é \\ud83d\\ude00\",\"reference_answer\":\"ref\"}", // no final newline
		"evals/set.yaml": "description: sidecar\ndataset: ds\nexecution:\n  target: t1\n  evaluators: [{type: llm_judge, name: side}]\n",
	}, "evals/set.jsonl")
	if HasErrors(s.Diagnostics) || len(s.Diagnostics) != 0 {
		t.Fatalf("diagnostics:\n%s", formatDiags(s.Diagnostics))
	}
	if s.Format != "jsonl" || s.Dataset != "ds" || s.Description != "sidecar" || s.Target != "t1" {
		t.Errorf("suite %q %q %q %q", s.Format, s.Dataset, s.Description, s.Target)
	}
	var got []string
	for _, c := range s.Cases {
		var evs []string
		for _, e := range c.Evaluators {
			evs = append(evs, e.Name)
		}
		got = append(got, fmt.Sprintf("%s@%d:%d q=%q ref=%q target=%q evals=%v", c.ID, c.Line, c.Col, c.Question, c.ReferenceAnswer, c.Target, evs))
	}
	want := []string{
		`a@1:1 q="hi" ref="{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null,\n    100\n  ]\n}" target="" evals=[side]`,
		`b@3:1 q="q" ref="" target="t2" evals=[code_judge]`,
		`c@4:1 q="é 😀" ref="ref" target="" evals=[side]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	if s.Cases[0].Evaluators[0] != s.Evaluators[0] {
		t.Errorf("sidecar evaluators must be shared")
	}
}

// Lines longer than the reader's buffer load whole, and the lines after them too.
func TestJSONLLongLines(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789abcdef", 20000) // 320 kB, several buffers
	s := loadTree(t, map[string]string{
		"set.jsonl": `{"id":"a","input":"short"}` + "\n" +
			`{"id":"big","input":"` + big + `"}` + "\n" +
			`{"id":"c","input":"x\"` + big[:70000] + `"}` + "\n" +
			`{"id":"d","input":"after"}`,
	}, "set.jsonl")
	if len(s.Diagnostics) != 0 {
		t.Fatalf("diagnostics:\n%s", formatDiags(s.Diagnostics))
	}
	var got []string
	for _, c := range s.Cases {
		got = append(got, fmt.Sprintf("%s@%d %d", c.ID, c.Line, len(c.Question)))
	}
	want := []string{"a@1 5", "big@2 320000", "c@3 70002", "d@4 5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	if s.Cases[1].Question != big || s.Cases[2].Question != `x"`+big[:70000] {
		t.Error("long line content differs")
	}
}

func TestJSONLBadLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line, want string
		col              int
	}{
		{"truncated", `{"id": "x", "input": `, "invalid JSON: unexpected end of JSON input (line skipped)", 21},
		{"bad token", `{"id": "x", "input": nope}`, "invalid JSON: invalid character 'o' in literal null (expecting 'u')", 23},
		{"trailing data", `{"id": "x", "input": "hi"} {}`, "invalid JSON: invalid character '{' after top-level value", 28},
		{"not an object", `"just a string"`, "a JSONL line must be one JSON object", 1},
		{"single quotes", `{'id': 1}`, "invalid JSON: invalid character '\\'' looking for beginning of object key string", 2},
		{"rune column", `{"idé": "x", "input": nope}`, "invalid JSON", 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, map[string]string{"set.jsonl": "{\"id\":\"ok\",\"input\":\"hi\"}\n" + tt.line + "\n{\"id\":\"ok2\",\"input\":\"hi\"}\n"}, "set.jsonl")
			if len(s.Cases) != 2 {
				t.Errorf("a bad line must skip only itself, got %d cases", len(s.Cases))
			}
			d := requireDiag(t, s.Diagnostics, SeverityError, tt.want)
			if d.Line != 2 || d.Col != tt.col || d.File != "set.jsonl" {
				t.Errorf("at %s:%d:%d, want set.jsonl:2:%d", d.File, d.Line, d.Col, tt.col)
			}
		})
	}
}

func TestJSONLSidecarIssues(t *testing.T) {
	t.Parallel()
	s := loadTree(t, map[string]string{
		"set.jsonl": "{\"id\":\"a\",\"input\":\"hi\"}\n",
		"set.yaml":  "dataset: ds\nexecution:\n  evaluators: [{type: nope}]\nnotes: x\n",
	}, "set.jsonl")
	if len(s.Cases) != 0 {
		t.Errorf("a case inheriting a broken sidecar evaluator must not load")
	}
	d := requireDiag(t, s.Diagnostics, SeverityError, `unknown evaluator type "nope"`, `1 case using the suite evaluators not loaded: "a"`)
	if d.File != "set.yaml" || d.Line != 3 {
		t.Errorf("sidecar problems point into the sidecar: %+v", d)
	}
	w := requireDiag(t, s.Diagnostics, SeverityWarning, `unknown key "notes"`)
	if w.File != "set.yaml" || w.Line != 4 {
		t.Errorf("warning %+v", w)
	}
}

// TestJSONLStreamMemory loads a 20,000-line JSONL suite and bounds the heap it keeps, so the
// 100,000-case budget of CONTRACT §1 holds with room to spare.
func TestJSONLStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory check skipped in -short mode")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	var b strings.Builder
	const n = 20000
	for i := range n {
		fmt.Fprintf(&b, `{"id":"case-%05d","expected_outcome":"The assistant answers 42 as JSON.","input_messages":[{"role":"system","content":"You are a careful assistant. Answer with a single JSON object."},{"role":"user","content":"Question %d: what is six times seven?"}],"expected_messages":[{"role":"assistant","content":"{\"answer\":\"42\"}"}],"execution":{"evaluators":[{"name":"cj","type":"code_judge","script":["python3","judge.py"]}]}}`+"\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := Load(path, LoadOptions{Cwd: dir})
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(s.Cases) != n || len(s.Diagnostics) != 0 {
		t.Fatalf("%d cases, %d diagnostics", len(s.Cases), len(s.Diagnostics))
	}
	perCase := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("retained %.0f bytes per case", perCase)
	// 100,000 such cases must leave most of the 150 MiB run budget to the runner: at most
	// 1,000 bytes per case (about 95 MiB). Today: about 830 bytes, most of it the Case and
	// Message structs, the per-case question and user text.
	if perCase > 1000 {
		t.Errorf("retained %.0f bytes per case: 100,000 cases would hold %.0f MiB", perCase, perCase*100000/(1<<20))
	}
	runtime.KeepAlive(s)
}

// TestFastJSONMatchesSlow checks that the fast scanner builds exactly the tree of the
// encoding/json based parser, and gives up (so the slow parser reports) on bad input.
func TestFastJSONMatchesSlow(t *testing.T) {
	t.Parallel()
	for _, line := range jsonLineSeeds {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			compareFastSlow(t, []byte(line))
		})
	}
}

var jsonLineSeeds = []string{
	`{"id":"a","input":"hi","expected_output":{"z":1,"a":[true,null,1.0e2,-0,0.5,1E+3]}}`,
	` { "id" : "é \ud83d\ude00" , "x" : [ ] , "y" : { } , "q\"k" : "a\\b\n\t\/\u00e9" } `,
	"{\"bad utf8\":\"\xff\xfe\",\"é\":\"ü\"}",
	`{"dup":1,"dup":2}`,
	`[1,2,3]`,
	`"just a string"`,
	`{"id": "x", "input": `,
	`{"id": "x", "input": nope}`,
	`{"id": "x", "input": "hi"} {}`,
	`{'id': 1}`,
	`{"a":1,}`,
	`[1,]`,
	`{"a":01}`,
	`{"a":1.}`,
	`{"a":-}`,
	`{"a":1e}`,
	`{"a":"` + "\x01" + `"}`,
	`{"a":"\x"}`,
	`{"a":"\ud800"}`,
	`{"a" 1}`,
	`{"a":tru}`,
	`{"a":nul`,
	`{1:2}`,
	`{"a":[1 2]}`,
	`{"a":1}}`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600),
}

func compareFastSlow(t *testing.T, line []byte) {
	t.Helper()
	slow, serr := parseJSONLine(line, 7)
	fast, ok := parseJSONLineFast(line, 7, nil, nil)
	if ok != (serr == nil) {
		t.Fatalf("fast ok=%v, slow err=%v", ok, serr)
	}
	if !ok {
		return
	}
	if diff := cmp.Diff(dumpNode(slow), dumpNode(fast)); diff != "" {
		t.Errorf("tree (-slow +fast):\n%s", diff)
	}
	// Again on a slab a larger line used before, with strings to share.
	slab := &jsonSlab{}
	if _, ok := parseJSONLineFast([]byte(slabLine), 1, slab, nil); !ok {
		t.Fatal("slab line rejected")
	}
	reused, ok := parseJSONLineFast(line, 7, slab, map[string]string{"hi": "hi", "a": "a"})
	if !ok {
		t.Fatal("rejected on a used slab")
	}
	if diff := cmp.Diff(dumpNode(slow), dumpNode(reused)); diff != "" {
		t.Errorf("tree on a used slab (-slow +fast):\n%s", diff)
	}
}

// slabLine dirties a slab: nested containers and strings of every kind.
var slabLine = `{"id":"s","input_messages":[{"role":"user","content":[{"type":"text","value":"a\"b"},{"type":"file","value":"x.md"}]}],` +
	`"expected_output":{"deep":[[1,2,{"k":[true,false,null]}],{"z":"\u00e9"}]},"n":-1.5e3,"e":{},"l":[]}`

func dumpNode(n *yaml.Node) []string {
	var out []string
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		out = append(out, fmt.Sprintf("%s%d %s %d %q @%d:%d", strings.Repeat(" ", depth), n.Kind, n.Tag, n.Style, n.Value, n.Line, n.Column))
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return out
}

func FuzzFastJSON(f *testing.F) {
	for _, s := range jsonLineSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		compareFastSlow(t, line)
	})
}

// Every key a case, message, segment or execution may have, and every role, is a known word
// (returned without a copy); other strings are not.
func TestKnownWords(t *testing.T) {
	t.Parallel()
	for _, list := range [][]string{caseKeys, messageKeys, segmentKeys, execKeys, roles, {"text", "file"}} {
		for _, w := range list {
			if got, ok := knownWord([]byte(w)); !ok || got != w {
				t.Errorf("knownWord(%q) = %q, %v", w, got, ok)
			}
		}
	}
	for _, w := range []string{"", "ids", "Role", "case-1"} {
		if got, ok := knownWord([]byte(w)); ok {
			t.Errorf("knownWord(%q) = %q, want unknown", w, got)
		}
	}
}
