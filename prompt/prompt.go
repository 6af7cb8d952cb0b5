// Package prompt formats a loaded case into the request a provider is sent, as AgentV 2.5
// does: the question text, the guidelines block, file blocks and, for conversations, chat
// messages with role markers.
package prompt

import (
	"bytes"
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// Build formats a case for a provider as AgentV 2.5 does: the question (flat, or with
// `@[Role]:` markers for multi-turn input), the guidelines block, and the chat prompt for
// role-marker input. In providers.ModeLM file contents are embedded as `<file path="...">`
// blocks; in providers.ModeAgent files are referenced as `<file: path="...">`.
func Build(c *suite.Case, mode providers.Mode) *providers.Request {
	req := &providers.Request{
		EvalID:         c.ID,
		GuidelinePaths: c.GuidelinePaths,
		InputFiles:     c.InputFiles,
		Files:          providers.UniqueFiles(c.FilePaths()),
		Guidelines:     requestGuidelines(c),
	}
	if c.Suite != nil {
		req.Dir, req.Agent = c.Suite.Dir, c.Suite.Agent
	}
	// AgentV 4.42.4 refers agents to a file by its absolute path, so they find it from any
	// working directory (formatting/segment-formatter.ts, formatSegment).
	absRefs := mode == providers.ModeAgent && req.Agent.AbsoluteFileRefs
	// Every message's segments in one backing array; most inputs have a few messages.
	var segsBuf [4][]requestSeg
	segs := segsBuf[:0]
	if len(c.Input) > len(segsBuf) {
		segs = make([][]requestSeg, 0, len(c.Input))
	}
	all := make([]requestSeg, 0, len(c.Input))
	size := 0 // about the question's length: one allocation for it
	for i := range c.Input {
		start := len(all)
		all = appendRequestSegments(all, &c.Input[i], absRefs)
		segs = append(segs, all[start:len(all):len(all)])
		for _, sg := range segs[i] {
			size += len(sg.text) + len(sg.path) + len("\n\n@[Assistant]:\n")
		}
	}
	markers := requestRoleMarkers(c.Input, segs)
	var b strings.Builder
	b.Grow(size)
	for i, m := range c.Input {
		if markers && !requestVisible(segs[i]) {
			continue
		}
		first := true
		for _, s := range segs[i] {
			f := s.format(mode)
			if !markers && s.kind == segGuidelineRef {
				continue // its contents are in Guidelines
			} else if !markers {
				f = strings.TrimSpace(f)
			}
			switch {
			case f == "":
				continue
			case markers && first:
				if b.Len() > 0 {
					b.WriteString("\n\n")
				}
				b.WriteString("@[")
				b.WriteString(roleLabel(m.Role))
				b.WriteString("]:\n")
			case markers:
				b.WriteByte('\n')
			case b.Len() > 0:
				b.WriteString("\n\n")
			}
			first = false
			b.WriteString(f)
		}
	}
	req.Question = b.String()
	if markers {
		req.Chat = requestChat(c.Input, segs, req.Guidelines, mode)
	}
	return req
}

// Record is the request as the results record shows it: `lm_provider_request`
// ({question, guidelines} or {chat_prompt}) in providers.ModeLM, `agent_provider_request`
// ({question, guideline_paths}) in providers.ModeAgent. HTML characters are not escaped.
func Record(req *providers.Request, mode providers.Mode) json.RawMessage {
	var v any
	switch {
	case mode == providers.ModeAgent:
		paths := req.GuidelinePaths
		if paths == nil {
			paths = []string{}
		}
		v = struct {
			Question       string   `json:"question"`
			GuidelinePaths []string `json:"guideline_paths"`
		}{req.Question, paths}
	case len(req.Chat) > 0:
		v = struct {
			ChatPrompt []providers.ChatMessage `json:"chat_prompt"`
		}{req.Chat}
	default:
		v = struct {
			Question   string `json:"question"`
			Guidelines string `json:"guidelines"`
		}{req.Question, req.Guidelines}
	}
	b, _ := jsonx.Marshal(v) // strings and slices of strings always encode
	return b
}

type requestSegKind uint8

const (
	segText requestSegKind = iota
	segFile
	segGuidelineRef
)

// requestSeg is one piece of a message after file resolution (AgentV's processed segment).
type requestSeg struct {
	kind requestSegKind
	text string // text value, or file contents
	path string // file display path (absolute with absRefs), or the guideline reference as written
}

// format renders a segment; "" means it shows nothing.
func (s requestSeg) format(mode providers.Mode) string {
	switch s.kind {
	case segText:
		return s.text
	case segGuidelineRef:
		return "<Attached: " + s.path + ">"
	}
	if mode == providers.ModeAgent {
		return `<file: path="` + s.path + `">`
	}
	if s.text == "" {
		return ""
	}
	return requestFileBlock(s.path, s.text)
}

func requestFileBlock(name, content string) string {
	return `<file path="` + name + `">` + "\n" + strings.TrimSpace(content) + "\n</file>"
}

// appendRequestSegments appends a message's processed content: blank text dropped, guideline files
// become references, unresolved files vanish, structured content is pretty JSON.
func appendRequestSegments(out []requestSeg, m *suite.Message, absRefs bool) []requestSeg {
	switch m.Content.Kind {
	case suite.ContentText:
		if strings.TrimSpace(m.Content.Text) != "" {
			out = append(out, requestSeg{kind: segText, text: m.Content.Text})
		}
	case suite.ContentStructured:
		var b bytes.Buffer
		if json.Indent(&b, m.Content.Structured, "", "  ") == nil && strings.TrimSpace(b.String()) != "" {
			out = append(out, requestSeg{kind: segText, text: b.String()})
		}
	case suite.ContentSegments:
		for _, s := range m.Content.Segments {
			switch s.Type {
			case "text":
				if strings.TrimSpace(s.Value) != "" {
					out = append(out, requestSeg{kind: segText, text: s.Value})
				}
			case "file":
				switch {
				case s.Value == "":
				case s.Guideline:
					out = append(out, requestSeg{kind: segGuidelineRef, path: s.Value})
				case s.Resolved != "":
					path := cmp.Or(s.Path, strings.TrimLeft(s.Value, `/\`))
					if absRefs {
						path = s.Resolved
					}
					out = append(out, requestSeg{kind: segFile, text: s.FileText, path: path})
				}
			}
		}
	}
	return out
}

// requestVisible reports text or non-blank file contents (guideline references don't count).
func requestVisible(segs []requestSeg) bool {
	return slices.ContainsFunc(segs, func(s requestSeg) bool {
		return s.kind != segGuidelineRef && strings.TrimSpace(s.text) != ""
	})
}

// requestRoleMarkers: any assistant or tool message, or more than one message with
// visible content, makes the input a conversation.
func requestRoleMarkers(msgs []suite.Message, segs [][]requestSeg) bool {
	visible := 0
	for i, m := range msgs {
		if m.Role == suite.RoleAssistant || m.Role == suite.RoleTool {
			return true
		}
		if requestVisible(segs[i]) {
			visible++
		}
	}
	return visible > 1
}

// roleLabel is a role as its marker shows it: "user" is User.
func roleLabel(role string) string {
	if role == "" {
		return ""
	}
	return strings.ToUpper(role[:1]) + role[1:]
}

// requestChat builds the multi-turn prompt: one system entry (guidelines block plus the
// leading system messages), then one entry per message; a system or tool message later in
// the conversation becomes an assistant entry marked `@[System]:` / `@[Tool]:`.
func requestChat(msgs []suite.Message, segs [][]requestSeg, guidelines string, mode providers.Mode) []providers.ChatMessage {
	var system []string
	if g := strings.TrimSpace(guidelines); g != "" {
		system = append(system, providers.GuidelinesHeader+"\n\n"+g)
	}
	// text joins message i's formatted segments; refs keeps guideline references.
	text := func(i int, refs bool) string {
		var parts []string
		for _, s := range segs[i] {
			if f := s.format(mode); f != "" && (refs || s.kind != segGuidelineRef) {
				parts = append(parts, f)
			}
		}
		return strings.Join(parts, "\n")
	}
	start := 0
	for ; start < len(msgs) && msgs[start].Role == suite.RoleSystem; start++ {
		if t := text(start, true); t != "" {
			system = append(system, t)
		}
	}
	var out []providers.ChatMessage
	if len(system) > 0 {
		out = append(out, providers.ChatMessage{Role: suite.RoleSystem, Content: strings.Join(system, "\n\n")})
	}
	for i := start; i < len(msgs); i++ {
		role, t := msgs[i].Role, text(i, false)
		if t == "" {
			continue
		}
		if role == suite.RoleSystem || role == suite.RoleTool {
			role, t = suite.RoleAssistant, "@["+roleLabel(role)+"]:\n"+t
		}
		out = append(out, providers.ChatMessage{Role: role, Content: t})
	}
	return out
}

// requestGuidelines is every guideline file's trimmed contents as a `<file path="BASENAME">`
// block, blocks separated by a blank line. Contents come from the loaded segments; a file
// no segment carries is read from disk, and an unreadable one is left out.
func requestGuidelines(c *suite.Case) string {
	var blocks []string
	for _, p := range c.GuidelinePaths {
		if text, ok := requestFileText(c, p); ok {
			blocks = append(blocks, requestFileBlock(filepath.Base(p), text))
		}
	}
	return strings.Join(blocks, "\n\n")
}

func requestFileText(c *suite.Case, abs string) (string, bool) {
	for _, m := range c.Input {
		for _, s := range m.Content.Segments {
			if s.Type == "file" && s.Resolved == abs {
				return s.FileText, true
			}
		}
	}
	b, err := safefile.ReadFile(abs, safefile.LimitContent)
	if err != nil {
		return "", false
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n"), true
}
