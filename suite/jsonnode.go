package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// jsonError is a JSON syntax problem at a 1-based rune column of the line.
type jsonError struct {
	col int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

// parseJSONLine parses one JSONL line with encoding/json into a yaml.Node tree carrying 1-based
// line and rune columns, so JSONL cases go through the same code (and get the same positions)
// as YAML ones. JSON is decoded as JSON, not as YAML flow: YAML would accept lines JSON
// rejects (comments, single quotes, unquoted keys) and reject some it accepts (surrogate pair
// escapes). Invalid UTF-8 in strings reads as U+FFFD. Checking a line with json.Valid and
// then handing it to the YAML library would drop this file, but measured 2026-11-27 it parses
// a typical case line 2.3 times slower (40 µs against 17 µs, BenchmarkJSONLLine) and refuses
// surrogate pair escapes, so the hand-written walk stays.
func parseJSONLine(line []byte, lineNo int) (*yaml.Node, *jsonError) {
	p := &jsonParser{line: line, lineNo: lineNo, dec: json.NewDecoder(bytes.NewReader(line)), col: 1}
	p.dec.UseNumber()
	n, err := p.value(0)
	if err == nil {
		if _, terr := p.dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		return nil, p.locate(err)
	}
	return n, nil
}

type jsonParser struct {
	line   []byte
	lineNo int
	dec    *json.Decoder
	// Columns count runes; offsets only grow while parsing, so the count is carried forward
	// (counting from the line's start for every node is quadratic on long lines).
	colOff, col int
}

// locate turns a parse failure into a positioned jsonError. The decoder's offsets are not
// reliable in token mode, so the line is re-checked with json.Unmarshal, whose SyntaxError
// offset counts from the start of the line.
func (p *jsonParser) locate(err error) *jsonError {
	var je *jsonError
	if errors.As(err, &je) {
		return je
	}
	var v any
	uerr := json.Unmarshal(p.line, &v)
	var se *json.SyntaxError
	if errors.As(uerr, &se) {
		off := int(se.Offset) - 1
		if strings.Contains(se.Error(), "unexpected end") {
			off = len(bytes.TrimRight(p.line, " \t\r\n"))
		}
		return &jsonError{col: utf8.RuneCount(p.line[:min(max(off, 0), len(p.line))]) + 1, msg: se.Error()}
	}
	return &jsonError{col: p.column(p.start()), msg: err.Error()}
}

// start returns the byte offset of the next token: the decoder's offset with whitespace and
// separators skipped.
func (p *jsonParser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.line) {
		switch p.line[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// column returns the rune column of byte offset off.
func (p *jsonParser) column(off int) int {
	off = min(off, len(p.line))
	if off < p.colOff {
		p.colOff, p.col = 0, 1
	}
	p.col += utf8.RuneCount(p.line[p.colOff:off])
	p.colOff = off
	return p.col
}

func (p *jsonParser) value(depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, &jsonError{col: p.column(p.start()), msg: "JSON nested too deeply"}
	}
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &yaml.Node{Line: p.lineNo, Column: p.column(off)}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
			for p.dec.More() {
				koff := p.start()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				ks, ok := kt.(string)
				if !ok {
					return nil, &jsonError{col: p.column(koff), msg: "object key must be a string"}
				}
				k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: ks, Line: p.lineNo, Column: p.column(koff)}
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, k, v)
			}
		case '[':
			n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
		default:
			return nil, &jsonError{col: p.column(off), msg: fmt.Sprintf("unexpected %q", rune(t))}
		}
		if _, err := p.dec.Token(); err != nil { // closing delimiter
			return nil, err
		}
	case string:
		n.Kind, n.Tag, n.Style, n.Value = yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, t
	case json.Number: // the decoder checked its JSON form, which YAML's core schema reads alike
		n.Kind, n.Value = yaml.ScalarNode, t.String()
		n.Tag = "!!int"
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", "false"
		if t {
			n.Value = "true"
		}
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}
