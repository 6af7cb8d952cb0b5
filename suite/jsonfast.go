package suite

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// fastJSON is a single-pass JSON scanner that builds the same positioned yaml.Node tree as
// jsonParser, without encoding/json's per-token allocations (the token decoder dominated the
// loading of large JSONL suites). It only handles valid input: on any problem it reports
// failure and the caller re-parses the line with jsonParser, which owns every error message
// and position, so diagnostics are unchanged.
type fastJSON struct {
	line   []byte
	lineNo int
	i      int
	// Columns are rune counts; offsets only grow, so the count is carried forward.
	colOff, col int
	slab        *jsonSlab
	intern      map[string]string // strings already loaded (loader.str): looked up, never added
	nodes       []yaml.Node       // free nodes: the slab's, then overflow chunks
	ptrs        []*yaml.Node      // free room for Content slices, likewise
	nodesTaken  int               // nodes handed out
	ptrsTaken   int               // pointers handed out from the slab's ptrs
	ptrsInSlab  bool              // ptrs is still the slab's
}

// jsonSlab is memory reused from one JSONL line to the next: the nodes of the tree, the
// backing of their Content slices and the scanner's scratch space. A tree built on a slab is
// only valid until the next parse with it; nothing keeps a line's nodes once its case is
// parsed (strings are copied out, lists key only anchored YAML nodes).
type jsonSlab struct {
	nodes     []yaml.Node
	nodesUsed int // nodes the last tree took from nodes, cleared before reuse
	ptrs      []*yaml.Node
	ptrsUsed  int
	stack     []*yaml.Node // children of the containers being parsed
	buf       []byte       // unescaped string bytes
}

// maxSlabNodes bounds what a slab keeps for the next line; a larger tree allocates the rest.
const maxSlabNodes = 4096

// knownWord returns the keys and values JSONL lines repeat most (case, message, segment and
// execution keys, roles) as constant strings, so the scanner does not copy them per line. A
// switch on the bytes neither allocates nor hashes.
func knownWord(b []byte) (string, bool) {
	switch string(b) {
	case "id":
		return "id", true
	case "description":
		return "description", true
	case "note":
		return "note", true
	case "input_messages":
		return "input_messages", true
	case "input":
		return "input", true
	case "question":
		return "question", true
	case "expected_outcome":
		return "expected_outcome", true
	case "outcome":
		return "outcome", true
	case "expected_messages":
		return "expected_messages", true
	case "expected_output":
		return "expected_output", true
	case "reference_answer":
		return "reference_answer", true
	case "conversation_id":
		return "conversation_id", true
	case "execution":
		return "execution", true
	case "evaluators":
		return "evaluators", true
	case "evaluator":
		return "evaluator", true
	case "rubrics":
		return "rubrics", true
	case "role":
		return "role", true
	case "content":
		return "content", true
	case "name":
		return "name", true
	case "tool_calls":
		return "tool_calls", true
	case "type":
		return "type", true
	case "value":
		return "value", true
	case "target":
		return "target", true
	case "text":
		return "text", true
	case "file":
		return "file", true
	case RoleSystem:
		return RoleSystem, true
	case RoleUser:
		return RoleUser, true
	case RoleAssistant:
		return RoleAssistant, true
	case RoleTool:
		return RoleTool, true
	}
	return "", false
}

// parseJSONLineFast returns the node tree of a valid JSON line, or ok=false. With a slab the
// tree reuses its memory (see jsonSlab); without, it is allocated for this call. intern (may
// be nil) holds strings to return instead of copies.
func parseJSONLineFast(line []byte, lineNo int, slab *jsonSlab, intern map[string]string) (n *yaml.Node, ok bool) {
	if slab == nil {
		slab = &jsonSlab{}
	}
	clear(slab.nodes[:slab.nodesUsed])
	clear(slab.ptrs[:slab.ptrsUsed])
	slab.stack = slab.stack[:0]
	p := &fastJSON{line: line, lineNo: lineNo, col: 1, slab: slab, intern: intern,
		nodes: slab.nodes, ptrs: slab.ptrs, ptrsInSlab: true}
	n, ok = p.value(0)
	// The slab's lent memory is cleared before its next use; a tree that outgrew the slab
	// gets a larger one for the next line (the old one stays with this tree).
	slab.nodesUsed = min(p.nodesTaken, len(slab.nodes))
	slab.ptrsUsed = p.ptrsTaken
	if p.nodesTaken > len(slab.nodes) && len(slab.nodes) < maxSlabNodes {
		size := min(max(2*p.nodesTaken, 64), maxSlabNodes)
		slab.nodes, slab.nodesUsed = make([]yaml.Node, size), 0
		slab.ptrs, slab.ptrsUsed = make([]*yaml.Node, size), 0
	}
	if !ok {
		return nil, false
	}
	p.skipSpace()
	if p.i != len(p.line) {
		return nil, false
	}
	return n, true
}

func (p *fastJSON) node() *yaml.Node {
	if len(p.nodes) == 0 {
		p.nodes = make([]yaml.Node, 64)
	}
	n := &p.nodes[0]
	p.nodes = p.nodes[1:]
	p.nodesTaken++
	n.Line = p.lineNo
	n.Column = p.column(p.i)
	return n
}

// children pops the nodes pushed on the stack since base and returns them as a Content
// slice (nil for none, as an append-built Content would be).
func (p *fastJSON) children(base int) []*yaml.Node {
	st := p.slab.stack
	k := len(st) - base
	if k == 0 {
		return nil
	}
	if len(p.ptrs) < k {
		p.ptrs, p.ptrsInSlab = make([]*yaml.Node, max(k, 64)), false
	}
	c := p.ptrs[:k:k] // full slice: appending to one Content never overwrites the next
	copy(c, st[base:])
	p.ptrs = p.ptrs[k:]
	if p.ptrsInSlab {
		p.ptrsTaken += k
	}
	p.slab.stack = st[:base]
	return c
}

func (p *fastJSON) column(off int) int {
	p.col += utf8.RuneCount(p.line[p.colOff:off])
	p.colOff = off
	return p.col
}

func (p *fastJSON) skipSpace() {
	for p.i < len(p.line) {
		switch p.line[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *fastJSON) value(depth int) (*yaml.Node, bool) {
	p.skipSpace()
	if depth > maxJSONDepth || p.i >= len(p.line) {
		return nil, false
	}
	n := p.node()
	switch c := p.line[p.i]; c {
	case '{':
		p.i++
		n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
		p.skipSpace()
		if p.i < len(p.line) && p.line[p.i] == '}' {
			p.i++
			return n, true
		}
		base := len(p.slab.stack)
		for {
			p.skipSpace()
			if p.i >= len(p.line) || p.line[p.i] != '"' {
				return nil, false
			}
			k := p.node()
			s, ok := p.str(true)
			if !ok {
				return nil, false
			}
			k.Kind, k.Tag, k.Style, k.Value = yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, s
			p.skipSpace()
			if p.i >= len(p.line) || p.line[p.i] != ':' {
				return nil, false
			}
			p.i++
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			p.slab.stack = append(p.slab.stack, k, v)
			if !p.next('}') {
				return nil, false
			}
			if p.line[p.i-1] == '}' {
				n.Content = p.children(base)
				return n, true
			}
		}
	case '[':
		p.i++
		n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
		p.skipSpace()
		if p.i < len(p.line) && p.line[p.i] == ']' {
			p.i++
			return n, true
		}
		base := len(p.slab.stack)
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			p.slab.stack = append(p.slab.stack, v)
			if !p.next(']') {
				return nil, false
			}
			if p.line[p.i-1] == ']' {
				n.Content = p.children(base)
				return n, true
			}
		}
	case '"':
		s, ok := p.str(false)
		if !ok {
			return nil, false
		}
		n.Kind, n.Tag, n.Style, n.Value = yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, s
	case 't':
		return n, p.literal("true", n, "!!bool")
	case 'f':
		return n, p.literal("false", n, "!!bool")
	case 'n':
		return n, p.literal("null", n, "!!null")
	default:
		if c != '-' && (c < '0' || c > '9') {
			return nil, false
		}
		start := p.i
		if !p.number() {
			return nil, false
		}
		n.Kind, n.Value = yaml.ScalarNode, string(p.line[start:p.i])
		n.Tag = "!!int"
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
		if !isCoreInt(n.Value) && !isCoreFloat(n.Value) {
			return nil, false
		}
	}
	return n, true
}

// next consumes the separator after a member: ',' or the closing delimiter.
func (p *fastJSON) next(closing byte) bool {
	p.skipSpace()
	if p.i >= len(p.line) {
		return false
	}
	switch p.line[p.i] {
	case ',', closing:
		p.i++
		return true
	}
	return false
}

func (p *fastJSON) literal(word string, n *yaml.Node, tag string) bool {
	if !strings.HasPrefix(string(p.line[p.i:min(len(p.line), p.i+len(word))]), word) {
		return false
	}
	p.i += len(word)
	n.Kind, n.Tag, n.Value = yaml.ScalarNode, tag, word
	return true
}

// number consumes a JSON number (RFC 8259 grammar).
func (p *fastJSON) number() bool {
	l, i := p.line, p.i
	if i < len(l) && l[i] == '-' {
		i++
	}
	switch {
	case i < len(l) && l[i] == '0':
		i++
	case i < len(l) && l[i] >= '1' && l[i] <= '9':
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(l) && l[i] == '.' {
		i++
		d := i
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(l) && (l[i] == 'e' || l[i] == 'E') {
		i++
		if i < len(l) && (l[i] == '+' || l[i] == '-') {
			i++
		}
		d := i
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	p.i = i
	return true
}

// str consumes a string literal. Plain strings (no escapes, valid UTF-8) are used as they
// are and simple escapes are decoded here; anything else (surrogate escapes, invalid bytes)
// is decoded by encoding/json so it reads exactly as the slow path reads it.
func (p *fastJSON) str(key bool) (string, bool) {
	l := p.line
	start := p.i + 1
	plain, ascii := true, true
	i := start
	for ; i < len(l); i++ {
		c := l[i]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			i++ // skip the escaped byte: `\"` does not end the string
			continue
		}
		if c < 0x20 {
			return "", false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if i >= len(l) {
		return "", false
	}
	p.i = i + 1
	raw := l[start:i]
	if plain && (ascii || utf8.Valid(raw)) {
		return p.known(raw, key), true
	}
	if b, ok := unescape(p.slab.buf[:0], raw); ok {
		p.slab.buf = b
		return p.known(b, key), true
	}
	var s string
	if err := json.Unmarshal(l[start-1:i+1], &s); err != nil {
		return "", false
	}
	return s, true
}

// known returns b as a string: one already held when there is one, else a copy. Keys are
// only looked for among the known words.
func (p *fastJSON) known(b []byte, key bool) string {
	if s, ok := knownWord(b); ok {
		return s
	}
	if !key && p.intern != nil && len(b) <= maxInternLen {
		if s, ok := p.intern[string(b)]; ok {
			return s
		}
	}
	return string(b)
}

// unescape appends the decoded body of a string literal to dst. It handles valid UTF-8 with
// the escapes \" \\ \/ \b \f \n \r \t and \uXXXX outside the surrogate range; ok=false
// leaves anything else to encoding/json.
func unescape(dst, raw []byte) ([]byte, bool) {
	if !utf8.Valid(raw) {
		return dst, false
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i++; i >= len(raw) {
			return dst, false
		}
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if i+5 > len(raw) {
				return dst, false
			}
			var r rune
			for _, h := range raw[i+1 : i+5] {
				switch {
				case h >= '0' && h <= '9':
					h -= '0'
				case h >= 'a' && h <= 'f':
					h -= 'a' - 10
				case h >= 'A' && h <= 'F':
					h -= 'A' - 10
				default:
					return dst, false
				}
				r = r<<4 | rune(h)
			}
			if utf16.IsSurrogate(r) {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
			i += 4
		default:
			return dst, false
		}
	}
	return dst, true
}
