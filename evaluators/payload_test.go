package evaluators

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/internal/golden"
	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/google/go-cmp/cmp"
)

func newCaseData(in *Input) *caseData { return &caseData{in: in} }

// Payload is the 2.5 payload of a case with config.
func Payload(in *Input, config json.RawMessage) ([]byte, error) {
	return newCaseData(normalizeInput(in)).payload(config)
}

func TestPayloadGolden(t *testing.T) {
	t.Parallel()
	cost, dur := 0.0123, 1500.0
	cached := int64(3)
	tests := []struct {
		name   string
		in     *Input
		config json.RawMessage
	}{
		{
			// Structured expected output keeps riskLevel, no reference answer (null),
			// tool calls and config keep their keys, HTML characters stay unescaped.
			name: "risk_case",
			in: func() *Input {
				c := riskCase("/evals")
				c.GuidelinePaths = []string{"/repo/.github/policy.instructions.md"}
				c.InputFiles = []string{"/repo/data/ticket.txt"}
				in := riskInput(c, `{"riskLevel":"High"}`)
				in.Response.OutputMessages = []suite.Message{
					{Role: "assistant", ToolCalls: json.RawMessage(`[{"tool":"knowledgeSearch","input":{"queryText":"risk <high>"},"output":{"hitCount":2},"duration_ms":12}]`)},
					structured("assistant", `{"riskLevel": "High", "notes": ["a & b"]}`),
				}
				in.Trace = &results.TraceSummary{
					EventCount: 1, ToolNames: []string{"knowledgeSearch"},
					ToolCallsByName: map[string]int{"knowledgeSearch": 1},
					TokenUsage:      &results.TokenUsage{Input: 10, Output: 5, Cached: &cached},
					CostUSD:         &cost, DurationMS: &dur,
				}
				return in
			}(),
			config: json.RawMessage(`{"rubricText": "be <strict> & fair", "maxItems": 3, "nested": {"camelKey": true}}`),
		},
		{
			// Reference answer present, segments (text, found and missing files, other items),
			// a named system message, a tool-call-only expected message, no output messages,
			// no trace and no config.
			name: "segments_reference",
			in: &Input{
				Case: &suite.Case{
					Suite:           &suite.Suite{Dir: "/evals"},
					ID:              "seg-1",
					ExpectedOutcome: "Summarise the file",
					Input: []suite.Message{
						{Role: "system", Name: "policy", Content: suite.Content{Kind: suite.ContentText, Text: "Be brief.\n\"quoted\""}},
						{Role: "user", Content: suite.Content{Kind: suite.ContentSegments, Segments: []suite.Segment{
							{Type: "text", Value: "Summarise:"},
							{Type: "file", Value: "/data/a.txt", Path: "data/a.txt", Resolved: "/repo/data/a.txt", FileText: "line 1\nline 2\n"},
							{Type: "file", Value: "missing.md", Path: "missing.md"},
							{Type: "image", Raw: json.RawMessage(`{"type": "image", "imageUrl": "x.png"}`)},
						}}},
					},
					Expected: []suite.Message{
						{Role: "assistant", ToolCalls: json.RawMessage(`[{"tool": "Read", "input": {"file_path": "config.json"}}]`)},
						structured("assistant", `{"status": "done"}`),
					},
					ReferenceAnswer: "{\n  \"status\": \"done\"\n}",
					HasReference:    true,
					Question:        "Be brief. \"quoted\" Summarise:",
				},
				Candidate: "Two lines.",
			},
		},
		{
			name: "empty_case",
			in:   &Input{Case: &suite.Case{ID: "empty"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Payload(tt.in, tt.config)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("payload is not valid JSON: %s", got)
			}
			if bytes.Contains(got, []byte(`\u003c`)) || bytes.Contains(got, []byte(`\u0026`)) {
				t.Errorf("payload escapes HTML characters: %s", got)
			}
			checkPayloadInvariants(t, got)
			golden.Check(t, filepath.Join("testdata", "payload_"+tt.name+".golden.json"), append(jsonx.Indent(got), '\n'))
		})
	}
}

// checkPayloadInvariants asserts the payload's documented key set and that old and new names agree.
func checkPayloadInvariants(t *testing.T, got []byte) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(got))
	_, _ = dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		_ = dec.Decode(&skip)
	}
	wantKeys := []string{"question", "expected_outcome", "expected_output", "input", "actual_output", "output_messages",
		"reference_answer", "guideline_files", "input_files", "trace_summary", "config",
		"candidate_answer", "input_messages", "expected_messages"}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("payload keys (-want +got):\n%s", diff)
	}
	for newName, oldName := range map[string]string{"actual_output": "candidate_answer", "input": "input_messages", "expected_output": "expected_messages"} {
		if string(m[newName]) != string(m[oldName]) {
			t.Errorf("%s = %s but %s = %s", newName, m[newName], oldName, m[oldName])
		}
	}
}

func TestPayloadRiskCaseValues(t *testing.T) {
	t.Parallel()
	in := riskInput(riskCase("/evals"), "High")
	got, err := Payload(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Question        string            `json:"question"`
		ExpectedOutput  []json.RawMessage `json:"expected_output"`
		Input           []json.RawMessage `json:"input"`
		ReferenceAnswer *string           `json:"reference_answer"`
		Config          json.RawMessage   `json:"config"`
		TraceSummary    json.RawMessage   `json:"trace_summary"`
		GuidelineFiles  []string          `json:"guideline_files"`
	}
	if err := json.Unmarshal(got, &p); err != nil {
		t.Fatal(err)
	}
	if p.Question != "What is the risk level?" {
		t.Errorf("question = %q", p.Question)
	}
	if string(p.ExpectedOutput[0]) != `{"role":"assistant","content":{"riskLevel":"High"}}` {
		t.Errorf("expected_output[0] = %s", p.ExpectedOutput[0])
	}
	if string(p.Input[0]) != `{"role":"user","content":"What is the risk level?"}` {
		t.Errorf("input[0] = %s", p.Input[0])
	}
	if p.ReferenceAnswer != nil || string(p.Config) != "null" || string(p.TraceSummary) != "null" {
		t.Errorf("reference_answer, config, trace_summary = %v, %s, %s; want nulls", p.ReferenceAnswer, p.Config, p.TraceSummary)
	}
	if p.GuidelineFiles == nil {
		t.Error("guideline_files is null, want []")
	}
}

func TestPayloadInvalidRawJSON(t *testing.T) {
	t.Parallel()
	c := riskCase("/evals")
	c.Expected = []suite.Message{structured("assistant", `{"broken": `)}
	if _, err := Payload(riskInput(c, "x"), nil); err == nil || !strings.Contains(err.Error(), "expected messages") {
		t.Errorf("err = %v, want an expected messages error", err)
	}
	if _, err := Payload(riskInput(riskCase("/evals"), "x"), json.RawMessage(`{nope`)); err == nil {
		t.Error("invalid config accepted")
	}
}

// A trace without tool calls keeps nil name lists (the runner saves the allocation); judges
// must still get a list and an object they can iterate.
func TestPayloadTraceWithoutToolCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		trace *results.TraceSummary
		want  string
	}{
		{"nil lists", &results.TraceSummary{}, `{"event_count":0,"tool_names":[],"tool_calls_by_name":{},"error_count":0}`},
		{"with calls", &results.TraceSummary{EventCount: 1, ToolNames: []string{"x"}, ToolCallsByName: map[string]int{"x": 1}},
			`{"event_count":1,"tool_names":["x"],"tool_calls_by_name":{"x":1},"error_count":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := riskInput(riskCase("/evals"), "answer")
			in.Trace = tt.trace
			b, err := Payload(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var p struct {
				Trace json.RawMessage `json:"trace_summary"`
			}
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if string(p.Trace) != tt.want {
				t.Errorf("trace_summary = %s, want %s", p.Trace, tt.want)
			}
			if tt.trace.ToolNames == nil && (len(tt.trace.ToolNames) != 0 || tt.trace.ToolCallsByName != nil) {
				t.Error("the caller's trace was modified")
			}
		})
	}
}
