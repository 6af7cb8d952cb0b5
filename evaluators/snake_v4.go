package evaluators

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentv/action/internal/jsonx"
)

// snake4 spells a key as AgentV 4.42.4's toSnakeCaseDeep does (packages/core/src/evaluation/
// case-conversion.ts) before a code grader or prompt template reads it: a key that starts with
// an ASCII capital is a proper name (a tool such as Read) and stays; in any other key each ASCII
// capital becomes `_` and its lowercase (riskLevel → risk_level, userID → user_i_d). Digits,
// dashes and underscores stay as they are.
func snake4(key string) string {
	if key == "" || (key[0] >= 'A' && key[0] <= 'Z') {
		return key
	}
	n := 0
	for i := 0; i < len(key); i++ {
		if key[i] >= 'A' && key[i] <= 'Z' {
			n++
		}
	}
	if n == 0 {
		return key
	}
	var b strings.Builder
	b.Grow(len(key) + n)
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// snakeKeys4 renames every object key of a JSON document with snake4, at every depth: 4.42.4
// converts the whole payload, the user's config, metadata, message contents, tool inputs and
// the tool names of the trace's counts included. Two keys that end up the same keep the first
// one's place and the last one's value, as the JavaScript object 4.42.4 builds does. Everything
// else (numbers, strings, order) is copied as it is.
func snakeKeys4(src []byte) ([]byte, error) {
	s := snakeScanner{src: src}
	out, err := s.value(make([]byte, 0, len(src)+len(src)/16))
	if err != nil {
		return nil, err
	}
	if s.skipSpace(); s.i != len(src) {
		return nil, fmt.Errorf("payload: unexpected data at offset %d", s.i)
	}
	return out, nil
}

type snakeScanner struct {
	src []byte
	i   int
}

func (s *snakeScanner) skipSpace() {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *snakeScanner) errf(what string) error {
	return fmt.Errorf("payload: %s at offset %d", what, s.i)
}

// value appends the value at s.i to dst, its keys renamed.
func (s *snakeScanner) value(dst []byte) ([]byte, error) {
	s.skipSpace()
	if s.i >= len(s.src) {
		return nil, s.errf("unexpected end")
	}
	switch s.src[s.i] {
	case '{':
		return s.object(dst)
	case '[':
		return s.array(dst)
	case '"':
		raw, err := s.str()
		return append(dst, raw...), err
	default:
		start := s.i
		for s.i < len(s.src) && !strings.ContainsRune(",]} \t\r\n", rune(s.src[s.i])) {
			s.i++
		}
		if s.i == start {
			return nil, s.errf("expected a value")
		}
		return append(dst, s.src[start:s.i]...), nil
	}
}

// str returns the string literal at s.i, quotes included.
func (s *snakeScanner) str() ([]byte, error) {
	start := s.i
	for s.i++; s.i < len(s.src); s.i++ {
		switch s.src[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return s.src[start:s.i], nil
		}
	}
	return nil, s.errf("unterminated string")
}

func (s *snakeScanner) array(dst []byte) ([]byte, error) {
	s.i++ // [
	dst = append(dst, '[')
	s.skipSpace()
	if s.i < len(s.src) && s.src[s.i] == ']' {
		s.i++
		return append(dst, ']'), nil
	}
	for {
		var err error
		if dst, err = s.value(dst); err != nil {
			return nil, err
		}
		s.skipSpace()
		if s.i >= len(s.src) {
			return nil, s.errf("unterminated array")
		}
		switch s.src[s.i] {
		case ',':
			s.i++
			dst = append(dst, ',')
		case ']':
			s.i++
			return append(dst, ']'), nil
		default:
			return nil, s.errf("expected , or ]")
		}
	}
}

func (s *snakeScanner) object(dst []byte) ([]byte, error) {
	s.i++ // {
	start := len(dst)
	dst = append(dst, '{')
	// Members are written straight to dst; where each one is is kept in case two keys end up
	// the same name, which is rare and then rebuilds the object.
	type member struct {
		name          string // the renamed key
		key, val, end int    // offsets in dst of its key, its value and its end
		last          int    // the member whose value wins (itself unless repeated)
	}
	var members []member
	var at map[string]int // by name, once the object is large enough for a linear search to cost
	repeated := false
	for first := true; ; first = false {
		s.skipSpace()
		if s.i >= len(s.src) {
			return nil, s.errf("unterminated object")
		}
		if s.src[s.i] == '}' && first {
			s.i++
			break
		}
		if s.src[s.i] != '"' {
			return nil, s.errf("expected a key")
		}
		raw, err := s.str()
		if err != nil {
			return nil, err
		}
		key := string(raw[1 : len(raw)-1])
		escaped := bytes.IndexByte(raw, '\\') >= 0
		if escaped { // decode it to read its letters
			if err := json.Unmarshal(raw, &key); err != nil {
				return nil, s.errf("bad key")
			}
		}
		name := snake4(key)
		if !first {
			dst = append(dst, ',')
		}
		m := member{name: name, key: len(dst), last: len(members)}
		switch {
		case name == key:
			dst = append(dst, raw...)
		case !escaped: // only letters and _ were added to a key that needed no escapes
			dst = append(append(append(dst, '"'), name...), '"')
		default:
			enc, err := jsonx.Marshal(name)
			if err != nil {
				return nil, err
			}
			dst = append(dst, enc...)
		}
		s.skipSpace()
		if s.i >= len(s.src) || s.src[s.i] != ':' {
			return nil, s.errf("expected :")
		}
		s.i++
		dst = append(dst, ':')
		m.val = len(dst)
		if dst, err = s.value(dst); err != nil {
			return nil, err
		}
		m.end = len(dst)
		idx, ok := -1, false
		if at != nil {
			idx, ok = at[name]
		} else {
			for j := range members {
				if members[j].name == name {
					idx, ok = j, true
					break
				}
			}
		}
		if ok {
			repeated = true
			members[idx].last = len(members)
			m.last = -1 // not written again
		}
		members = append(members, m)
		switch {
		case ok:
		case at != nil:
			at[name] = len(members) - 1
		case len(members) > 16:
			at = make(map[string]int, 2*len(members))
			for j := range members {
				if members[j].last >= 0 {
					at[members[j].name] = j
				}
			}
		}
		s.skipSpace()
		if s.i >= len(s.src) {
			return nil, s.errf("unterminated object")
		}
		if s.src[s.i] == ',' {
			s.i++
			continue
		}
		if s.src[s.i] == '}' {
			s.i++
			break
		}
		return nil, s.errf("expected , or }")
	}
	if !repeated {
		return append(dst, '}'), nil
	}
	body := append([]byte(nil), dst[start:]...)
	dst = append(dst[:start], '{')
	wrote := false
	for _, m := range members {
		if m.last < 0 {
			continue
		}
		if wrote {
			dst = append(dst, ',')
		}
		wrote = true
		w := members[m.last]
		dst = append(dst, body[m.key-start:m.val-start]...)
		dst = append(dst, body[w.val-start:w.end-start]...)
	}
	return append(dst, '}'), nil
}
