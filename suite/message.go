package suite

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

var (
	roles       = []string{RoleSystem, RoleUser, RoleAssistant, RoleTool}
	messageKeys = []string{"role", "content", "name", "tool_calls"}
	segmentKeys = []string{"type", "value"}
)

// input reads input_messages, input (string, message or message list) or question.
func (p *CaseParser) input(e *Entry) {
	if e == nil {
		at := &yaml.Node{Line: p.c.Line, Column: p.c.Col}
		p.fail(at, KindCase, "eval case has no input: set %q (a message list), %q (a string or message list) or %q",
			"input_messages", "input", "question")
		return
	}
	n := e.Value
	switch {
	case e.Key == "input_messages" && n.Kind != yaml.SequenceNode:
		p.fail(n, KindCase, "%q must be a list of messages, got %s", e.Key, KindName(n))
	case e.Key == "question" && n.Kind != yaml.ScalarNode:
		p.fail(n, KindCase, "%q must be a string, got %s", e.Key, KindName(n))
	case n.Kind == yaml.MappingNode && !HasKey(n, "role"):
		p.fail(n, KindCase, "%q must be a string or a list of messages, got a mapping without %q", e.Key, "role")
	default:
		p.c.Input = p.messages(n, RoleUser, true)
		if len(p.c.Input) == 0 && !p.failed {
			p.fail(n, KindCase, "%q holds no message", e.Key)
		}
	}
}

// expected reads expected_messages (a list) or expected_output with AgentV 2.5's
// shorthands: string → assistant text; message or message list; any other list or object →
// one assistant message with that structured content.
func (p *CaseParser) expected(e *Entry) {
	switch {
	case e == nil:
	case e.Key == "expected_messages" && e.Value.Kind != yaml.SequenceNode:
		p.fail(e.Value, KindCase, "%q must be a list of messages, got %s (use %q for a plain answer)",
			e.Key, KindName(e.Value), "expected_output")
	case e.Key == "expected_messages", e.Value.Kind == yaml.ScalarNode, HasKey(e.Value, "role"),
		e.Value.Kind == yaml.SequenceNode && len(e.Value.Content) > 0 && HasKey(e.Value.Content[0], "role"):
		p.c.Expected = p.messages(e.Value, RoleAssistant, false)
	case e.Value.Kind == yaml.SequenceNode || e.Value.Kind == yaml.MappingNode:
		p.c.Expected = []Message{{Role: RoleAssistant, Content: p.structured(e.Value)}}
	}
}

// messages reads a string (one message of role), a message or a list of messages.
func (p *CaseParser) messages(n *yaml.Node, role string, input bool) []Message {
	switch n.Kind {
	case yaml.ScalarNode:
		return []Message{{Role: role, Content: Content{Kind: ContentText, Text: p.l.str(n.Value)}}}
	case yaml.MappingNode:
		if m, ok := p.message(n, input); ok {
			return []Message{m}
		}
	case yaml.SequenceNode:
		out := make([]Message, 0, len(n.Content))
		for _, item := range n.Content {
			if m, ok := p.message(item, input); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

func HasKey(m *yaml.Node, key string) bool {
	return ValueOf(m, key) != nil
}

// ValueOf returns the value of key in mapping m (merge keys honoured), or nil.
func ValueOf(m *yaml.Node, key string) *yaml.Node {
	m = Deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	merge := false
	var found *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if isMergeKey(k) {
			merge = true
		} else if k.Kind == yaml.ScalarNode && k.Value == key {
			found = Deref(m.Content[i+1])
		}
	}
	if found != nil || !merge {
		return found
	}
	es := MapEntries(m)
	if j := findKey(es, key); j >= 0 {
		return es[j].Value
	}
	return nil
}

// message reads one message. A malformed message is an error: dropping it silently would run
// a different conversation than the one written.
func (p *CaseParser) message(item *yaml.Node, input bool) (Message, bool) {
	n := Deref(item)
	var m Message
	if n == nil || n.Kind != yaml.MappingNode {
		p.fail(n, KindCase, "a message must be a mapping with role and content, got %s", KindName(n))
		return m, false
	}
	es := MapEntries(n)
	p.l.Dupes(es, p.c.ID)
	var content, toolCalls *Entry
	for i := range es {
		e := &es[i]
		switch e.Key {
		case "role":
			if e.Value.Kind != yaml.ScalarNode || !slices.Contains(roles, e.Value.Value) {
				p.fail(e.Value, KindCase, "invalid message role %s (valid: %s)", Describe(e.Value), strings.Join(roles, ", "))
				return m, false
			}
			m.Role = roles[slices.Index(roles, e.Value.Value)]
		case "content":
			content = e
		case "name":
			if v, ok := p.text(e); ok {
				m.Name = p.l.str(v)
			}
		case "tool_calls":
			toolCalls = e
		default:
			p.l.UnknownKey(*e, "in message", p.c.ID, messageKeys)
		}
	}
	if m.Role == "" {
		p.fail(n, KindCase, "message has no %q (valid: %s)", "role", strings.Join(roles, ", "))
		return m, false
	}
	if toolCalls != nil && !IsNull(toolCalls.Value) {
		if toolCalls.Value.Kind != yaml.SequenceNode {
			p.fail(toolCalls.Value, KindCase, "%q must be a list, got %s", "tool_calls", KindName(toolCalls.Value))
			return m, false
		}
		if len(toolCalls.Value.Content) > 0 {
			if m.ToolCalls = p.json(toolCalls.Value, "tool_calls"); m.ToolCalls == nil {
				return m, false
			}
		}
	}
	if content != nil && !IsNull(content.Value) {
		m.Content = p.content(content.Value, input)
	}
	if m.Content.Kind == ContentNone && m.ToolCalls == nil {
		p.fail(n, KindCase, "message has neither %q nor %q", "content", "tool_calls")
		return m, false
	}
	return m, true
}

// content reads a message's content: text, a list of {type, value} segments, or structured data.
func (p *CaseParser) content(n *yaml.Node, input bool) Content {
	switch n.Kind {
	case yaml.ScalarNode:
		return Content{Kind: ContentText, Text: p.l.str(n.Value)}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			item = Deref(item)
			if item == nil || item.Kind != yaml.MappingNode || !hasStringType(item) {
				return p.structured(n) // not a segment list: keep it as data
			}
		}
		segs := make([]Segment, 0, len(n.Content))
		for _, item := range n.Content {
			if s, ok := p.segment(Deref(item), input); ok {
				segs = append(segs, s)
			}
		}
		return Content{Kind: ContentSegments, Segments: segs}
	}
	return p.structured(n)
}

func hasStringType(m *yaml.Node) bool {
	t := ValueOf(m, "type")
	return t != nil && t.Kind == yaml.ScalarNode && !IsNull(t)
}

func (p *CaseParser) structured(n *yaml.Node) Content {
	if b := p.json(n, "content"); b != nil {
		return Content{Kind: ContentStructured, Structured: b}
	}
	return Content{}
}

// json renders n as JSON; nil after failing the case (a value too large or deep).
func (p *CaseParser) json(n *yaml.Node, what string) []byte {
	b, err := ToJSON(n)
	if err != nil {
		p.fail(n, KindCase, "%s: %v", what, err)
	}
	return b
}

// segment reads one content item; file items are resolved and read.
func (p *CaseParser) segment(n *yaml.Node, input bool) (Segment, bool) {
	var s Segment
	var value *Entry
	es := MapEntries(n)
	for i := range es {
		switch es[i].Key {
		case "type":
			s.Type = p.l.str(es[i].Value.Value)
		case "value":
			value = &es[i]
		}
	}
	if s.Type != "text" && s.Type != "file" {
		s.Raw = p.json(n, "content item")
		return s, s.Raw != nil
	}
	for _, e := range es {
		if e.Key != "type" && e.Key != "value" {
			p.l.UnknownKey(e, "in a "+s.Type+" content item", p.c.ID, segmentKeys)
		}
	}
	if value == nil || IsNull(value.Value) || value.Value.Kind != yaml.ScalarNode {
		what := "the text"
		if s.Type == "file" {
			what = "a file path"
		}
		p.fail(n, KindCase, "a %s content item needs a %q holding %s", s.Type, "value", what)
		return s, false
	}
	s.Value = value.Value.Value
	if s.Type == "text" {
		s.Value = p.l.str(s.Value)
		return s, true
	}
	v := strings.TrimSpace(s.Value)
	s.Path = strings.TrimLeft(v, `/\`)
	r := p.l.Resolve(v, false)
	if r.Abs == "" {
		p.warn(value.Value, KindMissingFile, "file %q not found (tried: %s)", v, p.l.TriedList(r))
		return s, true
	}
	text, err := p.l.readText(r.Abs)
	if err != nil {
		p.warn(value.Value, KindMissingFile, "could not read file %q: %s", v, ErrText(err))
		return s, true
	}
	s.Resolved, s.FileText = r.Abs, text
	if input {
		s.Guideline = p.l.isGuideline(r.Abs)
		if s.Guideline {
			p.c.GuidelinePaths = appendUnique(p.c.GuidelinePaths, r.Abs)
		} else {
			p.c.InputFiles = appendUnique(p.c.InputFiles, r.Abs)
		}
	}
	return s, true
}

func appendUnique(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// reference sets ReferenceAnswer: the explicit value wins, else it is derived from the last
// expected message.
func (p *CaseParser) reference(e *Entry) {
	c := p.c
	if e != nil && !IsNull(e.Value) {
		if e.Value.Kind == yaml.ScalarNode {
			c.ReferenceAnswer, c.HasReference = e.Value.Value, true
			return
		}
		if b := p.json(e.Value, "reference_answer"); b != nil {
			c.ReferenceAnswer, c.HasReference = prettyJSON(b), true
		}
		return
	}
	if len(c.Expected) == 0 {
		return
	}
	c.HasReference = true
	c.ReferenceAnswer = DeriveReference(c.Expected[len(c.Expected)-1])
}

// DeriveReference renders a message the way AgentV derives reference_answer from the last
// expected message: text as is, other content as 2-space JSON (file segments as
// {type, path, text, resolvedPath}), tool calls alone as their JSON, else "".
func DeriveReference(m Message) string {
	switch m.Content.Kind {
	case ContentText:
		return m.Content.Text
	case ContentStructured:
		return prettyJSON(m.Content.Structured)
	case ContentSegments:
		return prettyJSON(SegmentsJSON(m.Content.Segments))
	}
	if m.ToolCalls != nil {
		return prettyJSON(m.ToolCalls)
	}
	return ""
}

// SegmentsJSON renders processed segments as AgentV does: text items {type, value}, resolved
// file items {type, path, text, resolvedPath}, other items verbatim; unresolved files dropped.
func SegmentsJSON(segs []Segment) json.RawMessage {
	items := make([][]byte, 0, len(segs))
	for _, s := range segs {
		switch {
		case s.Raw != nil:
			items = append(items, s.Raw)
		case s.Type == "text":
			items = append(items, objectJSON([]jsonField{{"type", quote("text")}, {"value", quote(s.Value)}}))
		case s.Type == "file" && s.Resolved != "":
			items = append(items, objectJSON([]jsonField{{"type", quote("file")}, {"path", quote(s.Path)},
				{"text", quote(s.FileText)}, {"resolvedPath", quote(s.Resolved)}}))
		}
	}
	return slices.Concat([]byte("["), bytes.Join(items, []byte(",")), []byte("]"))
}

func quote(s string) []byte {
	var b bytes.Buffer
	writeJSONString(&b, s)
	return b.Bytes()
}

// question derives Case.Question as AgentV 2.5 does: string contents, JSON of structured contents
// and text segments of every input message, each trimmed, empties dropped, joined by a space.
func question(msgs []Message) string {
	parts := make([]string, 0, 4) // stays on the stack for the usual few parts
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	for _, m := range msgs {
		switch m.Content.Kind {
		case ContentText:
			add(m.Content.Text)
		case ContentStructured:
			add(prettyJSON(m.Content.Structured))
		case ContentSegments:
			for _, s := range m.Content.Segments {
				if s.Type == "text" && s.Raw == nil {
					add(s.Value)
				}
			}
		}
	}
	return strings.Join(parts, " ")
}
