package providers

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/suite"
)

func TestCLIParseOutput(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name  string
		in    string
		want  *Response
		warns []string
	}{
		// AgentV 2.5 and 4.42.4 grade the answer as written (providers/cli.ts, parseOutputContent).
		{"plain text as written", "\n  hello world \n", &Response{Text: "\n  hello world \n"}, nil},
		{"json without known keys is the answer", `{"answer":"42"}`, &Response{Text: `{"answer":"42"}`}, nil},
		{"json without known keys, as written", " {\"answer\":\"42\"}\n", &Response{Text: " {\"answer\":\"42\"}\n"}, nil},
		{"json around whitespace", "\n{\"text\":\" hi\\n\"}\n", &Response{Text: " hi\n"}, nil},
		{"not json", `{"text": "x"`, &Response{Text: `{"text": "x"`}, nil},
		{"array is text", `[1,2]`, &Response{Text: `[1,2]`}, nil},
		{"text field", `{"text":"hi <b>"}`, &Response{Text: "hi <b>"}, nil},
		{"explicit empty text", `{"text":""}`, &Response{Text: ""}, nil},
		{"non-string text as json", `{"text": {"b": 1, "a": [true]}}`, &Response{Text: `{"b":1,"a":[true]}`}, nil},
		{"camelCase metrics", `{"text":"t","tokenUsage":{"input":3,"output":4},"costUsd":0.5,"durationMs":7}`,
			&Response{Text: "t", Usage: &Usage{Input: 3, Output: 4}, CostUSD: f(0.5), DurationMS: f(7)}, nil},
		{"snake wins", `{"text":"t","cost_usd":1,"costUsd":2}`, &Response{Text: "t", CostUSD: f(1)}, nil},
		{"negative cost and duration dropped", `{"text":"t","cost_usd":-1,"duration_ms":-5}`, &Response{Text: "t"},
			[]string{"cost_usd ignored: negative value -1", "duration_ms ignored: negative value -5"}},
		{"bad cost type", `{"text":"t","cost_usd":"cheap"}`, &Response{Text: "t"}, []string{`cost_usd ignored: want a number, got "cheap"`}},
		// AgentV 4.x's `output` list wins over output_messages; a non-list `output` is not it.
		{"4.x output", `{"output":[{"role":"assistant","content":"new","tool_calls":[{"tool":"Read"}]}],"output_messages":[{"role":"assistant","content":"old"}]}`,
			&Response{Text: "new", OutputMessages: []suite.Message{
				{Role: "assistant", Content: suite.Content{Kind: suite.ContentText, Text: "new"}, ToolCalls: []byte(`[{"tool":"Read"}]`)}}}, nil},
		{"non-list output", `{"text":"t","output":"log"}`, &Response{Text: "t"}, nil},
		{"empty output_messages fall back to text", `{"output_messages":[],"text":"t"}`, &Response{Text: "t", OutputMessages: []suite.Message{}}, nil},
		{"empty output_messages and no text: raw", `{"output_messages":[]}`, &Response{Text: `{"output_messages":[]}`, OutputMessages: []suite.Message{}}, nil},
		{"messages", `{"text":"ignored","outputMessages":[{"role":"user","content":"q"},{"content":[{"type":"text","value":"a"},{"type":"text","text":"b"}],"tool_calls":[{"tool":"t"}],"toolCalls":[{"tool":"camel"}]},{"role":"tool","content":{"k":1}}]}`,
			&Response{Text: "a\nb", OutputMessages: []suite.Message{
				{Role: "user", Content: suite.Content{Kind: suite.ContentText, Text: "q"}},
				{Role: "assistant", Content: suite.Content{Kind: suite.ContentSegments, Segments: []suite.Segment{{Type: "text", Value: "a"}, {Type: "text", Value: "b"}}}, ToolCalls: []byte(`[{"tool":"t"}]`)},
				{Role: "tool", Content: suite.Content{Kind: suite.ContentStructured, Structured: []byte(`{"k":1}`)}},
			}}, nil},
		{"bad messages", `{"output_messages":"nope","text":"t"}`, &Response{Text: "t"}, []string{"output_messages ignored: want a list of message objects"}},
		{"usage with cached", `{"text":"t","token_usage":{"input":1,"output":2,"cached":3}}`, &Response{Text: "t", Usage: &Usage{Input: 1, Output: 2, Cached: func() *int64 { v := int64(3); return &v }()}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, warns := cliParseOutput([]byte(tc.in))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.warns, warns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
