package suite

import (
	"encoding/json"
	"strings"
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
	nodes       []yaml.Node // slab: one allocation for many nodes
}

// parseJSONLineFast returns the node tree of a valid JSON line, or ok=false. When slab is
// not nil its nodes are reused (and it keeps the nodes allocated for the next line): the
// tree is then only valid until the next call with the same slab.
func parseJSONLineFast(line []byte, lineNo int, slab *[]yaml.Node) (n *yaml.Node, ok bool) {
	p := &fastJSON{line: line, lineNo: lineNo, col: 1}
	need := min(countNodes(line)+1, 4096)
	switch {
	case slab == nil:
		p.nodes = make([]yaml.Node, need)
	case cap(*slab) >= need:
		p.nodes = (*slab)[:need]
		clear(p.nodes)
	default:
		p.nodes = make([]yaml.Node, need)
		*slab = p.nodes
	}
	n, ok = p.value(0)
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
	n.Line = p.lineNo
	n.Column = p.column(p.i)
	return n
}

// countNodes counts the values and keys of a valid JSON text (strings, containers and other
// scalars outside strings), so one slab holds the whole tree. Invalid text only makes the
// count wrong, which costs an extra allocation.
func countNodes(line []byte) int {
	n := 0
	inStr, esc := false, false
	prev := byte(',') // the last structural byte seen outside strings
	for _, c := range line {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			inStr = true
			n++
		case '{', '[':
			n++
		case ']', '}':
		default:
			if prev == ',' || prev == ':' || prev == '[' {
				n++ // first byte of a number, true, false or null
			}
		}
		prev = c
	}
	return n
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
		for {
			p.skipSpace()
			if p.i >= len(p.line) || p.line[p.i] != '"' {
				return nil, false
			}
			k := p.node()
			s, ok := p.str()
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
			n.Content = append(n.Content, k, v)
			if !p.next('}') {
				return nil, false
			}
			if p.line[p.i-1] == '}' {
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
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, v)
			if !p.next(']') {
				return nil, false
			}
			if p.line[p.i-1] == ']' {
				return n, true
			}
		}
	case '"':
		s, ok := p.str()
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

// str consumes a string literal. Plain strings (no escapes, valid UTF-8) are copied directly;
// anything else is decoded by encoding/json so escapes and invalid bytes read exactly as the
// slow path reads them.
func (p *fastJSON) str() (string, bool) {
	l := p.line
	start := p.i + 1
	plain := true
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
			plain = false
		}
	}
	if i >= len(l) {
		return "", false
	}
	p.i = i + 1
	if plain {
		return string(l[start:i]), true
	}
	if !hasEscape(l[start:i]) && utf8.Valid(l[start:i]) {
		return string(l[start:i]), true
	}
	var s string
	if err := json.Unmarshal(l[start-1:i+1], &s); err != nil {
		return "", false
	}
	return s, true
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}
