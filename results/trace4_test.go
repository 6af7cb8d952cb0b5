package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/suite"
)

// relaxed442 removes from a trace.json or transcript.jsonl value what differs by design:
// when it was written, and the provider kind 4.42.4 names (cli) where a record, which does
// not hold the kind, names its target.
func relaxed442(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "created_at")
		for _, k := range []string{"provider", "gen_ai.provider.name"} {
			if v[k] == "cli" {
				v[k] = "default"
			}
		}
		if md, ok := v["metadata"].(map[string]any); ok && md["provider"] == "cli" {
			delete(md, "provider")
		}
		for _, c := range v {
			relaxed442(c)
		}
	case []any:
		for _, c := range v {
			relaxed442(c)
		}
	}
	return v
}

// jsonValues reads a JSON file, or each line of a JSONL file, as values.
func jsonValues(t *testing.T, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, relaxed442(v))
	}
	return out
}

// TestTraceLike442: outputs/trace.json and outputs/transcript.jsonl of a test are what 4.42.4
// wrote for the same result (testdata/trace442): the same ids (hashes of timestamp, suite,
// test, target and run directory name), spans, events, tool calls, scores and transcript
// rows, a tool call's output messages and a plain answer alike.
func TestTraceLike442(t *testing.T) {
	t.Parallel()
	cost := 0.01
	tools := OutputOf([]suite.Message{
		{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: "let me look"},
			ToolCalls: json.RawMessage(`[{"tool":"read","input":{"path":"a.txt"},"output":"hello","id":"c1","duration_ms":12}]`)},
		{Role: "tool", Content: suite.Content{Kind: suite.ContentText, Text: "hello"}},
		{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: "final answer"}},
	})
	for _, tc := range []struct {
		name, dir string
		rec       *Record
	}{
		{"tools", "tools/t1", &Record{Timestamp: "2026-11-27T06:32:54.457Z", EvalID: "t1", Dataset: "tools", Target: "default",
			Score: 1, Verdict: VerdictPass, CandidateAnswer: "final answer", Output: tools, DurationMS: 123, File: "tools.eval.yaml",
			AgentProviderRequest: json.RawMessage(`{"question":"what is in a.txt?","guideline_paths":[]}`),
			TraceSummary:         &TraceSummary{ToolNames: []string{"read"}, ToolCallsByName: map[string]int{"read": 1}, TokenUsage: &TokenUsage{Input: 10, Output: 5}, CostUSD: &cost},
			EvaluatorResults: []EvaluatorResult{{Name: "contains-final", Type: "contains", Score: 1, Weight: 1, Verdict: "pass",
				Hits: []string{`Output contains "final"`}, Misses: []string{}}}}},
		{"half", "greet/half", &Record{Timestamp: "2026-11-27T03:27:58.140Z", EvalID: "half", Dataset: "greet", Target: "default",
			Score: 0.5, Verdict: VerdictFail, CandidateAnswer: "answer: half ok\n", DurationMS: 24, File: "test/e2e/testdata/agentv442/greet.eval.yaml",
			AgentProviderRequest: json.RawMessage(`{"question":"half ok","guideline_paths":[]}`),
			EvaluatorResults: []EvaluatorResult{
				{Name: "contains-half", Type: "contains", Score: 1, Weight: 1, Verdict: "pass", Hits: []string{`Output contains "half"`}, Misses: []string{}},
				{Name: "contains-zzz", Type: "contains", Score: 0, Weight: 1, Verdict: "fail", Hits: []string{}, Misses: []string{`Output does not contain "zzz"`}},
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "run") // the run directory's name is the trace's run id
			if err := WriteRunDir(writeResults(t, dir, tc.rec), out, RunDirOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"trace.json", "transcript.jsonl"} {
				want := jsonValues(t, filepath.Join("testdata", "trace442", tc.name, name))
				got := jsonValues(t, filepath.Join(out, filepath.FromSlash(tc.dir), "outputs", name))
				if !reflect.DeepEqual(got, want) {
					g, _ := json.MarshalIndent(got, "", " ")
					w, _ := json.MarshalIndent(want, "", " ")
					t.Errorf("%s differs from 4.42.4's\n--- ours\n%s\n--- 4.42.4\n%s", name, g, w)
				}
			}
			idx, _ := os.ReadFile(filepath.Join(out, IndexFile))
			if want := `"transcript_path":"` + tc.dir + `/outputs/transcript.jsonl"`; !strings.Contains(string(idx), want) {
				t.Errorf("index row lacks %s:\n%s", want, idx)
			}
		})
	}
}

// TestOutputOf: a record keeps the output messages only when they say more than the answer.
func TestOutputOf(t *testing.T) {
	t.Parallel()
	text := func(role, s string) suite.Message {
		return suite.Message{Role: role, Content: suite.Content{Kind: suite.ContentText, Text: s}}
	}
	call := text(suite.RoleAssistant, "")
	call.Content = suite.Content{}
	call.ToolCalls = json.RawMessage(`[{"tool":"bash","input":{"cmd":"ls"}}]`)
	for _, tc := range []struct {
		name string
		msgs []suite.Message
		want string
	}{
		{"none", nil, ""},
		{"plain answer", []suite.Message{text(suite.RoleAssistant, "hi")}, ""},
		{"tool call only", []suite.Message{call}, `[{"role":"assistant","tool_calls":[{"tool":"bash","input":{"cmd":"ls"}}]}]`},
		{"several", []suite.Message{text("tool", "x <y>"), text(suite.RoleAssistant, "z")}, `[{"role":"tool","content":"x <y>"},{"role":"assistant","content":"z"}]`},
		{"too long", slices.Repeat([]suite.Message{text("tool", strings.Repeat("x", maxOutput/4))}, 5), ""},
		{"structured", []suite.Message{{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentStructured, Structured: json.RawMessage(`{"a":1}`)}}, text("tool", "t")},
			`[{"role":"assistant","content":{"a":1}},{"role":"tool","content":"t"}]`},
	} {
		if got := string(OutputOf(tc.msgs)); got != tc.want {
			t.Errorf("%s: OutputOf = %.300s (%d bytes), want %s", tc.name, got, len(got), tc.want)
		}
	}
}
