package evaluators

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// caseData holds the JSON renderings of a case that every evaluator of the case shares:
// message lists for the payload and for template variables, built once on first use.
type caseData struct {
	in       *Input
	built    bool
	err      error
	expected []byte // compact JSON message list
	input    []byte
	output   []byte // nil when the target returned no output messages
}

func newCaseData(in *Input) *caseData { return &caseData{in: in} }

// messages builds the message lists once.
func (d *caseData) messages() error {
	if d.built {
		return d.err
	}
	d.built = true
	c := d.in.Case
	if d.expected, d.err = appendMessages(nil, c.Expected); d.err != nil {
		d.err = fmt.Errorf("expected messages: %w", d.err)
		return d.err
	}
	if d.input, d.err = appendMessages(nil, c.Input); d.err != nil {
		d.err = fmt.Errorf("input messages: %w", d.err)
		return d.err
	}
	if resp := d.in.Response; resp != nil && len(resp.OutputMessages) > 0 {
		if d.output, d.err = appendMessages(nil, resp.OutputMessages); d.err != nil {
			d.err = fmt.Errorf("output messages: %w", d.err)
		}
	}
	return d.err
}

// Payload returns the judge and template payload of a case (CONTRACT §4.3): one snake_case
// JSON object with the seed-002 names and, for existing judges, the older names with the
// same values. User data (content objects, tool calls, config) keeps its keys as written.
// config is the evaluator's pass-through config (nil: null).
func Payload(in *Input, config json.RawMessage) ([]byte, error) {
	return newCaseData(normalizeInput(in)).payload(config)
}

func (d *caseData) payload(config json.RawMessage) ([]byte, error) {
	if err := d.messages(); err != nil {
		return nil, err
	}
	in, c := d.in, d.in.Case
	question := c.Question
	if question == "" && in.Request != nil {
		question = in.Request.Question
	}
	b := make([]byte, 0, 512+len(question)+2*(len(in.Candidate)+len(d.expected)+len(d.input))+len(d.output)+len(config))
	b = append(b, `{"question":`...)
	b = jsonx.AppendString(b, question)
	b = append(b, `,"expected_outcome":`...)
	b = jsonx.AppendString(b, c.ExpectedOutcome)
	b = append(b, `,"expected_output":`...)
	b = append(b, d.expected...)
	b = append(b, `,"input":`...)
	b = append(b, d.input...)
	b = append(b, `,"actual_output":`...)
	b = jsonx.AppendString(b, in.Candidate)
	b = append(b, `,"output_messages":`...)
	b = appendOrNull(b, d.output)
	b = append(b, `,"reference_answer":`...)
	if c.HasReference {
		b = jsonx.AppendString(b, c.ReferenceAnswer)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"guideline_files":`...)
	b = appendStrings(b, c.GuidelinePaths)
	b = append(b, `,"input_files":`...)
	b = appendStrings(b, c.InputFiles)
	b = append(b, `,"trace_summary":`...)
	if in.Trace != nil {
		ts, err := jsonx.Marshal(traceForPayload(in.Trace))
		if err != nil {
			return nil, fmt.Errorf("trace summary: %w", err)
		}
		b = append(b, ts...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"config":`...)
	if isNull(config) {
		b = append(b, "null"...)
	} else {
		var err error
		if b, err = jsonx.AppendCompact(b, config); err != nil {
			return nil, fmt.Errorf("evaluator config is not valid JSON: %w", err)
		}
	}
	b = append(b, `,"candidate_answer":`...)
	b = jsonx.AppendString(b, in.Candidate)
	b = append(b, `,"input_messages":`...)
	b = append(b, d.input...)
	b = append(b, `,"expected_messages":`...)
	b = append(b, d.expected...)
	return append(b, '}'), nil
}

// traceForPayload returns t with its tool name list and counts as [] and {} rather than null
// when there were no tool calls: judges iterate them (a Python len() of null crashes).
func traceForPayload(t *results.TraceSummary) *results.TraceSummary {
	if t.ToolNames != nil && t.ToolCallsByName != nil {
		return t
	}
	cp := *t
	if cp.ToolNames == nil {
		cp.ToolNames = []string{}
	}
	if cp.ToolCallsByName == nil {
		cp.ToolCallsByName = map[string]int{}
	}
	return &cp
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

func appendOrNull(b, raw []byte) []byte {
	if raw == nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, s)
	}
	return append(b, ']')
}

// appendMessages writes msgs as a JSON list of {role, name?, content?, tool_calls?}: our own
// keys snake_case, content objects and tool calls verbatim.
func appendMessages(b []byte, msgs []suite.Message) ([]byte, error) {
	b = append(b, '[')
	for i := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendMessage(b, &msgs[i]); err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
	}
	return append(b, ']'), nil
}

func appendMessage(b []byte, m *suite.Message) ([]byte, error) {
	var err error
	b = append(b, `{"role":`...)
	b = jsonx.AppendString(b, m.Role)
	if m.Name != "" {
		b = append(b, `,"name":`...)
		b = jsonx.AppendString(b, m.Name)
	}
	switch m.Content.Kind {
	case suite.ContentText:
		b = append(b, `,"content":`...)
		b = jsonx.AppendString(b, m.Content.Text)
	case suite.ContentStructured:
		b = append(b, `,"content":`...)
		if b, err = jsonx.AppendCompact(b, m.Content.Structured); err != nil {
			return nil, fmt.Errorf("content: %w", err)
		}
	case suite.ContentSegments:
		b = append(b, `,"content":[`...)
		for i := range m.Content.Segments {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendSegment(b, &m.Content.Segments[i]); err != nil {
				return nil, fmt.Errorf("content item %d: %w", i+1, err)
			}
		}
		b = append(b, ']')
	}
	if len(m.ToolCalls) > 0 && !isNull(m.ToolCalls) {
		b = append(b, `,"tool_calls":`...)
		if b, err = jsonx.AppendCompact(b, m.ToolCalls); err != nil {
			return nil, fmt.Errorf("tool_calls: %w", err)
		}
	}
	return append(b, '}'), nil
}

// appendSegment writes a content item: text {type, value}; file {type, value, path,
// resolved_path?, text?} (the file's contents when it was found); others verbatim.
func appendSegment(b []byte, s *suite.Segment) ([]byte, error) {
	switch {
	case s.Type == "file":
		b = append(b, `{"type":"file","value":`...)
		b = jsonx.AppendString(b, s.Value)
		b = append(b, `,"path":`...)
		b = jsonx.AppendString(b, s.Path)
		if s.Resolved != "" {
			b = append(b, `,"resolved_path":`...)
			b = jsonx.AppendString(b, s.Resolved)
			b = append(b, `,"text":`...)
			b = jsonx.AppendString(b, s.FileText)
		}
		return append(b, '}'), nil
	case s.Type != "text" && len(s.Raw) > 0:
		return jsonx.AppendCompact(b, s.Raw)
	}
	b = append(b, `{"type":`...)
	b = jsonx.AppendString(b, s.Type)
	b = append(b, `,"value":`...)
	b = jsonx.AppendString(b, s.Value)
	return append(b, '}'), nil
}
