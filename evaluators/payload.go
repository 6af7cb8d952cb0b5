package evaluators

import (
	"bytes"
	"encoding/json"
	"errors"
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

// messages builds the message lists once.
func (d *caseData) messages() error {
	if d.built {
		return d.err
	}
	d.built = true
	c := d.in.Case
	if d.expected, d.err = messagesJSON(c.Expected); d.err != nil {
		d.err = fmt.Errorf("expected messages: %w", d.err)
		return d.err
	}
	if d.input, d.err = messagesJSON(c.Input); d.err != nil {
		d.err = fmt.Errorf("input messages: %w", d.err)
		return d.err
	}
	if resp := d.in.Response; resp != nil && len(resp.OutputMessages) > 0 {
		if d.output, d.err = messagesJSON(resp.OutputMessages); d.err != nil {
			d.err = fmt.Errorf("output messages: %w", d.err)
		}
	}
	return d.err
}

// payload is the 2.5 judge and template payload: one snake_case JSON object with the current
// names (candidate_answer, expected_messages, ...) and, for existing judges, the older names
// with the same values. User data (content objects, tool calls, config) keeps its keys as
// written. config is the evaluator's pass-through config (nil: null).
func (d *caseData) payload(config json.RawMessage) ([]byte, error) {
	if err := d.messages(); err != nil {
		return nil, err
	}
	in, c := d.in, d.in.Case
	p := payload{
		Question: c.Question, ExpectedOutcome: c.ExpectedOutcome,
		ExpectedOutput: d.expected, Input: d.input, ActualOutput: in.Candidate, OutputMessages: d.output,
		GuidelineFiles: nonNil(c.GuidelinePaths), InputFiles: nonNil(c.InputFiles),
		CandidateAnswer: in.Candidate, InputMessages: d.input, ExpectedMessages: d.expected,
	}
	if p.Question == "" && in.Request != nil {
		p.Question = in.Request.Question
	}
	if c.HasReference {
		p.ReferenceAnswer = &c.ReferenceAnswer
	}
	if in.Trace != nil {
		// Tool names and counts as [] and {} rather than null when there were no tool calls:
		// judges iterate them (a Python len() of null crashes).
		t := *in.Trace
		t.ToolNames = nonNil(t.ToolNames)
		if t.ToolCallsByName == nil {
			t.ToolCallsByName = map[string]int{}
		}
		p.TraceSummary = &t
	}
	if !isNull(config) {
		if !json.Valid(config) {
			return nil, errors.New("evaluator config is not valid JSON")
		}
		p.Config = config
	}
	return jsonx.Marshal(&p)
}

// payload is the 2.5 payload, in the order of its keys.
type payload struct {
	Question         string                `json:"question"`
	ExpectedOutcome  string                `json:"expected_outcome"`
	ExpectedOutput   json.RawMessage       `json:"expected_output"`
	Input            json.RawMessage       `json:"input"`
	ActualOutput     string                `json:"actual_output"`
	OutputMessages   json.RawMessage       `json:"output_messages"` // null when the target returned none
	ReferenceAnswer  *string               `json:"reference_answer"`
	GuidelineFiles   []string              `json:"guideline_files"`
	InputFiles       []string              `json:"input_files"`
	TraceSummary     *results.TraceSummary `json:"trace_summary"`
	Config           json.RawMessage       `json:"config"`
	CandidateAnswer  string                `json:"candidate_answer"`
	InputMessages    json.RawMessage       `json:"input_messages"`
	ExpectedMessages json.RawMessage       `json:"expected_messages"`
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// nonNil is ss, or an empty list for nil: judges iterate lists.
func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// messagesJSON renders msgs as a JSON list of {role, name?, content?, tool_calls?}: our own
// keys snake_case, content objects and tool calls verbatim.
func messagesJSON(msgs []suite.Message) ([]byte, error) {
	list := make([]message, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		list[i] = message{Role: m.Role, Name: m.Name}
		switch m.Content.Kind {
		case suite.ContentText:
			list[i].Content = m.Content.Text
		case suite.ContentStructured:
			list[i].Content = m.Content.Structured
		case suite.ContentSegments:
			segs := make([]any, len(m.Content.Segments))
			for j := range m.Content.Segments {
				segs[j] = segmentJSON(&m.Content.Segments[j])
			}
			list[i].Content = segs
		}
		if !isNull(m.ToolCalls) {
			list[i].ToolCalls = m.ToolCalls
		}
	}
	return jsonx.Marshal(list)
}

// message is a message as judges see it.
type message struct {
	Role      string          `json:"role"`
	Name      string          `json:"name,omitempty"`
	Content   any             `json:"content,omitempty"` // text, a content object, or a list of items
	ToolCalls json.RawMessage `json:"tool_calls,omitempty"`
}

// segmentJSON is a content item as judges see it: text {type, value}; file {type, value,
// path, resolved_path?, text?} (the file's contents when it was found); others verbatim.
func segmentJSON(s *suite.Segment) any {
	switch {
	case s.Type == "file":
		f := struct {
			Type         string  `json:"type"`
			Value        string  `json:"value"`
			Path         string  `json:"path"`
			ResolvedPath string  `json:"resolved_path,omitempty"`
			Text         *string `json:"text,omitempty"`
		}{Type: "file", Value: s.Value, Path: s.Path}
		if s.Resolved != "" {
			f.ResolvedPath, f.Text = s.Resolved, &s.FileText
		}
		return f
	case s.Type != "text" && len(s.Raw) > 0:
		return s.Raw
	}
	return struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	}{s.Type, s.Value}
}
