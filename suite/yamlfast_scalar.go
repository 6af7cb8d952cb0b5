package suite

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// blockScalar parses a literal (|) or folded (>) block scalar whose indicator is at offset off;
// parent is the indentation of its collection. It follows the library's scanner: the content
// indentation is that of the first non-empty line (at least parent+1), lines are kept or folded,
// and the final break is clipped, stripped (-) or kept with the trailing empty lines (+).
// Explicit indentation indicators are outside the subset.
func (p *fastYAML) blockScalar(off, parent int) *yaml.Node {
	s := p.cur()
	if parent < 0 {
		p.fail = true
		return nil
	}
	line, c := p.line, p.col(off)
	literal := s[off] == '|'
	j := off + 1
	chomp := 0
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		chomp = 1
		if s[j] == '-' {
			chomp = -1
		}
		j++
	}
	h := j
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j < len(s) && (s[j] != '#' || j == h) {
		p.fail = true // an indentation indicator, or text after the header
		return nil
	}
	p.next()

	indent, maxIndent, trailing := 0, 0, 0
	// breaks eats empty lines (and the indentation of the next line, up to indent when known).
	breaks := func() {
		for !p.eof() {
			cur := p.cur()
			k := 0
			for k < len(cur) && cur[k] == ' ' && (indent == 0 || k < indent) {
				k++
			}
			maxIndent = max(maxIndent, k)
			if k < len(cur) {
				return
			}
			trailing++
			p.next()
		}
	}
	breaks()
	indent = max(maxIndent, parent+1, 1)

	b := p.buf[:0]
	leadingBreak, leadingBlank := false, false
	for !p.eof() {
		cur := p.cur()
		if len(cur) <= indent || strings.TrimLeft(cur[:indent], " ") != "" {
			break
		}
		text := cur[indent:]
		trailingBlank := text[0] == ' '
		if !literal && !leadingBlank && !trailingBlank && leadingBreak {
			if trailing == 0 {
				b = append(b, ' ')
			}
		} else if leadingBreak {
			b = append(b, '\n')
		}
		for ; trailing > 0; trailing-- {
			b = append(b, '\n')
		}
		leadingBlank = text[0] == ' '
		b = append(b, text...)
		leadingBreak = true
		p.next()
		breaks()
	}
	if chomp != -1 && leadingBreak {
		b = append(b, '\n')
	}
	if chomp == 1 {
		for ; trailing > 0; trailing-- {
			b = append(b, '\n')
		}
	}
	p.buf = b
	style := yaml.LiteralStyle
	if !literal {
		style = yaml.FoldedStyle
	}
	n := p.node(yaml.ScalarNode, "!!str", string(b), line, c)
	n.Style = style
	if p.skipBlank() && p.indent() > parent {
		p.fail = true
	}
	if p.fail {
		return nil
	}
	return n
}

// resolve returns the tag the library gives a plain scalar (YAML 1.2 core rules with the
// library's extensions: Go integer syntax, underscores, floats like "08"). Timestamps and merge
// keys are outside the subset.
func (p *fastYAML) resolve(v string) string {
	switch v[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~', '<':
		switch v {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return "!!bool"
		case "~", "null", "Null", "NULL":
			return "!!null"
		case "<<":
			p.fail = true
		}
		return "!!str"
	case '.':
		switch v {
		case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF":
			return "!!float"
		}
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return "!!float"
		}
		return "!!str"
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
	default:
		return "!!str"
	}
	switch v {
	case "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "-0", "-0.0":
		return "!!float"
	}
	d := 0
	for d < len(v) && v[d] >= '0' && v[d] <= '9' {
		d++
	}
	if d == 4 && len(v) > 4 && v[4] == '-' {
		p.fail = true // maybe a timestamp
		return ""
	}
	plain := v
	if strings.IndexByte(v, '_') >= 0 {
		plain = strings.ReplaceAll(v, "_", "")
	}
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseUint(strings.TrimPrefix(plain, "+"), 0, 64); err == nil {
		return "!!int"
	}
	if yfFloatSyntax(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return "!!float"
		}
	}
	return "!!str"
}

// yfFloatSyntax matches ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func yfFloatSyntax(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
