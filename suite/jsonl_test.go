package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

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
// goal of suites up to 100,000 cases holds with room to spare.
//
//nolint:paralleltest // measures this process's allocation, which other tests would add to.
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

// TestParseJSONLine pins how a JSONL line is read: as JSON (not YAML flow), into a tree whose
// scalars keep their text, with rune columns; a bad line names its column.
func TestParseJSONLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line string
		want       []string // the tree (dumpNode), or the error as "col: message"
	}{
		{"scalars keep their text", `{"a":[true,null,1.0e2,-0,12345678901234567890123]}`, []string{
			`4 !!map 32 "" @7:1`, ` 8 !!str 2 "a" @7:2`, ` 2 !!seq 32 "" @7:6`,
			`  8 !!bool 0 "true" @7:7`, `  8 !!null 0 "null" @7:12`, `  8 !!float 0 "1.0e2" @7:17`,
			`  8 !!int 0 "-0" @7:23`, `  8 !!int 0 "12345678901234567890123" @7:26`}},
		{"escapes and rune columns", `{"é\u0000":` + "\t" + `"\ud83d\ude00\/", "b":"` + "\xff" + `"}`, []string{
			`4 !!map 32 "" @7:1`, ` 8 !!str 2 "é\x00" @7:2`, ` 8 !!str 2 "😀/" @7:13`,
			` 8 !!str 2 "b" @7:31`, " 8 !!str 2 \"\ufffd\" @7:35"}},
		{"duplicate keys are kept for the loader to warn", `{"k":1,"k":2}`, []string{
			`4 !!map 32 "" @7:1`, ` 8 !!str 2 "k" @7:2`, ` 8 !!int 0 "1" @7:6`, ` 8 !!str 2 "k" @7:8`, ` 8 !!int 0 "2" @7:12`}},
		{"lone surrogate", `"\ud800"`, []string{"8 !!str 2 \"\ufffd\" @7:1"}},
		{"YAML comment", `{"a":1} # note`, []string{"9: invalid character '#' after top-level value"}},
		{"YAML unquoted key", `{a: 1}`, []string{"2: invalid character 'a' looking for beginning of object key string"}},
		{"trailing comma", `{"a":1,}`, []string{"8: invalid character '}' looking for beginning of object key string"}},
		{"control character", "{\"a\":\"\x01\"}", []string{"7: invalid character '\\x01' in string literal"}},
		{"bad escape", `{"a":"\x"}`, []string{"8: invalid character 'x' in string escape code"}},
		{"leading zero", `{"a":01}`, []string{"7: invalid character '1' after object key:value pair"}},
		{"truncated", `{"a":[1,`, []string{"9: unexpected end of JSON input"}},
		{"too deep", strings.Repeat("[", 600) + strings.Repeat("]", 600), []string{"514: JSON nested too deeply"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := parseJSONLine([]byte(tt.line), 7)
			var got []string
			if err != nil {
				got = []string{fmt.Sprintf("%d: %s", err.col, err.msg)}
			} else {
				got = dumpNode(n)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

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

// TestJSONLLongLineColumns: columns stay right on a long line of many multibyte values (they
// are counted forward from node to node, not from the line's start each time).
func TestJSONLLongLineColumns(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"id":"x","input":"hi","expected_output":[`)
	const n = 200000
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"é"`)
	}
	b.WriteString("]}")
	line := []byte(b.String())
	root, err := parseJSONLine(line, 1)
	if err != nil {
		t.Fatal(err)
	}
	list := root.Content[5]
	if last := list.Content[n-1]; last.Column != utf8.RuneCount(line)-4 {
		t.Errorf("last item at column %d, want %d", last.Column, utf8.RuneCount(line)-4)
	}
}

func TestCountJSONLCases(t *testing.T) {
	t.Parallel()
	long := `{"id":"long","input":"` + strings.Repeat("x", 200<<10) + `"}`
	tests := []struct {
		name, text string
		want       int
	}{
		{"empty", "", 0},
		{"one line without newline", `{"id":"a"}`, 1},
		{"blank lines are not cases", "\n{\"id\":\"a\"}\n \t\r\n{\"id\":\"b\"}\n\n", 2},
		{"a malformed line is planned too", "{\"id\":\"a\"}\nnot json\n", 2},
		{"a line longer than the read buffer", long + "\n" + long, 2},
		{"CRLF", "{\"id\":\"a\"}\r\n{\"id\":\"b\"}\r\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := CountJSONLCases(path)
			if err != nil || got != tt.want {
				t.Errorf("CountJSONLCases = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	if _, err := CountJSONLCases(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("a missing file counts without an error")
	}
}
