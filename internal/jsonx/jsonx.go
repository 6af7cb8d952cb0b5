// Package jsonx holds JSON helpers shared by evaluators and reports: finding the first
// JSON object in free text (judge replies), and encoding/json without HTML escaping
// (model text and user data must reach judges and reports byte for byte).
package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
)

// scanBudgetFactor bounds the work of FirstObject to about this many passes over its
// input: adversarial text ("{{{{…") would otherwise make the candidate search quadratic.
const scanBudgetFactor = 16

// FirstObject returns the first valid JSON object in s: s itself, a fenced block, or an
// object embedded in prose. Candidates are tried in order of their opening brace; braces
// inside JSON strings do not count. The returned bytes are a copy, not an alias of s.
func FirstObject(s string) (json.RawMessage, bool) {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		if b := []byte(t); json.Valid(b) {
			return b, true
		}
	}
	b := []byte(s)
	budget := scanBudgetFactor*len(b) + 1<<16
	for i := 0; i < len(b) && budget > 0; {
		j := bytes.IndexByte(b[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		end, scanned := matchBrace(b, start)
		budget -= scanned
		if end >= 0 {
			cand := b[start : end+1]
			budget -= len(cand)
			if json.Valid(cand) {
				return cand, true
			}
		}
		i = start + 1
	}
	return nil, false
}

// matchBrace returns the index of the brace closing the one at start (-1 if none) and how
// many bytes it looked at. It understands JSON strings and escapes, nothing else.
func matchBrace(b []byte, start int) (end, scanned int) {
	depth := 0
	inStr, esc := false, false
	for k := start; k < len(b); k++ {
		c := b[k]
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
		case '"':
			inStr = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return k, k - start + 1
			}
		}
	}
	return -1, len(b) - start
}

// AppendCompact appends the JSON value raw to dst without insignificant whitespace, keeping
// string escapes and key order as written. It fails when raw is not valid JSON.
func AppendCompact(dst []byte, raw []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, raw); err != nil {
		return dst, err
	}
	return buf.Bytes(), nil
}

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// Indent returns raw pretty-printed with two-space indentation (JSON.stringify(v, null, 2)
// layout). String escapes are kept as written; invalid JSON is returned unchanged.
func Indent(raw []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return raw
	}
	return buf.Bytes()
}
