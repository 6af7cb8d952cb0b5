package suite

import (
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// flow parses a flow collection ([...] or {...}) that starts at offset off and ends on the
// same line, returning it and the offset past its closing bracket (-1: outside the subset).
// The subset is conservative: elements are nested flow collections and one-line quoted or
// plain scalars; plain scalars hold no ':' or '#', every mapping key has a value after ": ",
// and there are no trailing commas or implicit single-pair mappings inside sequences.
func (p *fastYAML) flow(off int) (*yaml.Node, int) {
	if p.depth++; p.depth > yfMaxDepth {
		return nil, -1
	}
	defer func() { p.depth-- }()
	s := p.cur()
	isMap := s[off] == '{'
	closer := byte(']')
	kind, tag := yaml.SequenceNode, "!!seq"
	if isMap {
		closer, kind, tag = '}', yaml.MappingNode, "!!map"
	}
	n := p.node(kind, tag, "", p.line, p.col(off))
	n.Style = yaml.FlowStyle
	mark := len(p.stack)
	j := yfSpaces(s, off+1)
	if j < len(s) && s[j] == closer {
		n.Content = p.content(mark)
		return n, j + 1
	}
	for {
		e, k := p.flowItem(j)
		if k < 0 {
			return nil, -1
		}
		p.stack = append(p.stack, e)
		j = yfSpaces(s, k)
		if isMap {
			// a key needs ": " after it: implicit null values and "a:b" are the library's
			if j >= len(s) || s[j] != ':' || j+1 >= len(s) || s[j+1] != ' ' {
				return nil, -1
			}
			v, k := p.flowItem(yfSpaces(s, j+1))
			if k < 0 {
				return nil, -1
			}
			p.stack = append(p.stack, v)
			j = yfSpaces(s, k)
		}
		if j >= len(s) {
			return nil, -1
		}
		if s[j] == closer {
			n.Content = p.content(mark)
			return n, j + 1
		}
		if s[j] != ',' {
			return nil, -1
		}
		j = yfSpaces(s, j+1)
		if j >= len(s) || s[j] == closer || s[j] == ',' {
			return nil, -1 // trailing or doubled comma
		}
	}
}

// flowItem parses one element of a flow collection at offset off: a nested collection, a
// quoted scalar or a plain scalar. It returns the offset past it (-1: outside the subset).
func (p *fastYAML) flowItem(off int) (*yaml.Node, int) {
	s := p.cur()
	if off >= len(s) {
		return nil, -1
	}
	switch s[off] {
	case '[', '{':
		return p.flow(off)
	case '\'', '"':
		v, style, end := p.quoted(off)
		if end < 0 {
			return nil, -1
		}
		n := p.node(yaml.ScalarNode, "!!str", v, p.line, p.col(off))
		n.Style = style
		return n, end
	}
	if !plainStart(s, off) || s[off] == '-' && (off+1 == len(s) || strings.IndexByte(",[]{}", s[off+1]) >= 0) {
		return nil, -1
	}
	e := off
	for e < len(s) && strings.IndexByte(",[]{}", s[e]) < 0 {
		if s[e] == ':' && e+1 < len(s) && s[e+1] == ' ' {
			break // a key's end
		}
		if s[e] == ':' || s[e] == '#' {
			return nil, -1
		}
		e++
	}
	v := strings.TrimRight(s[off:e], " ")
	tag := p.resolve(v)
	if p.fail {
		return nil, -1
	}
	return p.node(yaml.ScalarNode, tag, p.src[p.i+off:p.i+off+len(v)], p.line, p.col(off)), off + len(v)
}

// yfSpaces skips spaces from offset j.
func yfSpaces(s string, j int) int {
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j
}
