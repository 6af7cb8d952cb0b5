package providers

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/agentv/action/suite"
)

// cliParseOutput reads a command's answer as AgentV 2.5 does. A JSON object may carry `text`,
// `output_messages` (or AgentV 4.x's `output`, which wins), `token_usage` {input, output, cached?}, `cost_usd` and `duration_ms`
// (snake_case or camelCase, snake winning): non-empty output_messages are preferred, then
// text (a non-string text is sent as JSON), else the whole output is the answer. Anything
// else is plain text. Negative cost or duration are dropped with a warning. Text answers are
// kept as written, surrounding whitespace included: AgentV (2.5 and 4.x) grades the raw text,
// so `regex: "42\\.$"` fails on "42.\n" there and must here too.
func cliParseOutput(data []byte) (*Response, []string) {
	trimmed := bytes.TrimSpace(data)
	var obj map[string]json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil {
		return &Response{Text: string(data)}, nil
	}
	resp, warns := cliParseRecord(obj)
	if resp.Text == "" && len(resp.OutputMessages) == 0 && obj["text"] == nil {
		resp.Text = string(data)
	}
	return resp, warns
}

// cliParseRecord reads the answer fields of one JSON object (an output file or a batch line).
func cliParseRecord(obj map[string]json.RawMessage) (*Response, []string) {
	resp := &Response{}
	var warns []string
	raw := cliField(obj, "output_messages", "outputMessages")
	// AgentV 4.x names the list `output` and prefers it; a non-list `output` is some other
	// field of a 2.5 answer and is left alone.
	if out := bytes.TrimSpace(obj["output"]); len(out) > 0 && out[0] == '[' {
		raw = out
	}
	if raw != nil {
		msgs, err := cliMessages(raw)
		if err != nil {
			warns = append(warns, "output_messages ignored: "+err.Error())
		}
		resp.OutputMessages = msgs
	}
	if raw := obj["text"]; raw != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			resp.Text = s
		} else if string(raw) != "null" {
			resp.Text = cliCompact(raw)
		}
	}
	if len(resp.OutputMessages) > 0 {
		if t, ok := cliLastAssistant(resp.OutputMessages); ok {
			resp.Text = t
		}
	}
	if raw := cliField(obj, "token_usage", "tokenUsage"); raw != nil {
		var u map[string]json.RawMessage
		if json.Unmarshal(raw, &u) == nil {
			in, okIn := cliInt(cliField(u, "input", "input_tokens"))
			out, okOut := cliInt(cliField(u, "output", "output_tokens"))
			if okIn || okOut {
				resp.Usage = &Usage{Input: in, Output: out}
				if c, ok := cliInt(cliField(u, "cached", "cached_tokens")); ok {
					resp.Usage.Cached = &c
				}
			}
		}
	}
	for _, f := range []struct {
		dst        **float64
		snake, alt string
	}{{&resp.CostUSD, "cost_usd", "costUsd"}, {&resp.DurationMS, "duration_ms", "durationMs"}} {
		raw := cliField(obj, f.snake, f.alt)
		if raw == nil {
			continue
		}
		var v float64
		switch {
		case json.Unmarshal(raw, &v) != nil || math.IsNaN(v) || math.IsInf(v, 0):
			warns = append(warns, fmt.Sprintf("%s ignored: want a number, got %s", f.snake, cliExcerpt(string(raw))))
		case v < 0:
			warns = append(warns, fmt.Sprintf("%s ignored: negative value %v", f.snake, v))
		default:
			*f.dst = &v
		}
	}
	return resp, warns
}

// cliField returns obj[snake], else obj[alt]; nil when neither is present.
func cliField(obj map[string]json.RawMessage, snake, alt string) json.RawMessage {
	if v, ok := obj[snake]; ok {
		return v
	}
	if v, ok := obj[alt]; ok {
		return v
	}
	return nil
}

func cliInt(raw json.RawMessage) (int64, bool) {
	var f float64
	if raw == nil || json.Unmarshal(raw, &f) != nil || f < 0 || f > math.MaxInt64 || math.IsNaN(f) {
		return 0, false
	}
	return int64(f), true
}

// cliMessages normalizes output messages (snake or camel keys) to suite messages; tool
// calls are kept verbatim.
func cliMessages(raw json.RawMessage) ([]suite.Message, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("want a list of message objects")
	}
	out := make([]suite.Message, 0, len(items))
	for _, it := range items {
		var m suite.Message
		_ = json.Unmarshal(it["role"], &m.Role)
		m.Role = cmp.Or(m.Role, suite.RoleAssistant)
		_ = json.Unmarshal(it["name"], &m.Name)
		m.Content = cliContent(it["content"])
		if tc := cliField(it, "tool_calls", "toolCalls"); tc != nil && bytes.HasPrefix(bytes.TrimSpace(tc), []byte("[")) {
			m.ToolCalls = json.RawMessage(cliCompact(tc))
		}
		out = append(out, m)
	}
	return out, nil
}

// cliContent reads message content: a string, a list of {type: text, value|text} items,
// or anything else kept as structured JSON.
func cliContent(raw json.RawMessage) suite.Content {
	if raw == nil || string(bytes.TrimSpace(raw)) == "null" {
		return suite.Content{}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return suite.Content{Kind: suite.ContentText, Text: s}
	}
	var items []struct {
		Type  string  `json:"type"`
		Value *string `json:"value"`
		Text  *string `json:"text"`
	}
	if json.Unmarshal(raw, &items) == nil && len(items) > 0 {
		segs := make([]suite.Segment, 0, len(items))
		for _, it := range items {
			v := it.Value
			if v == nil {
				v = it.Text
			}
			if it.Type != "text" || v == nil {
				segs = nil
				break
			}
			segs = append(segs, suite.Segment{Type: "text", Value: *v})
		}
		if segs != nil {
			return suite.Content{Kind: suite.ContentSegments, Segments: segs}
		}
	}
	return suite.Content{Kind: suite.ContentStructured, Structured: json.RawMessage(cliCompact(raw))}
}

// cliLastAssistant is the text of the last assistant message that has content.
func cliLastAssistant(msgs []suite.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != suite.RoleAssistant {
			continue
		}
		switch m.Content.Kind {
		case suite.ContentText:
			return m.Content.Text, true
		case suite.ContentStructured:
			return string(m.Content.Structured), true
		case suite.ContentSegments:
			parts := make([]string, 0, len(m.Content.Segments))
			for _, s := range m.Content.Segments {
				parts = append(parts, s.Value)
			}
			return strings.Join(parts, "\n"), true
		}
	}
	return "", false
}

func cliCompact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func cliExcerpt(s string) string {
	const n = 200
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…(truncated)"
}
