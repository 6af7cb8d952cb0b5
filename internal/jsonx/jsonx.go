// Package jsonx holds JSON helpers shared by evaluators and reports: finding the first
// JSON object in free text (judge replies), and writing JSON without HTML escaping
// (model text and user data must reach judges and reports byte for byte).
//
//	raw, ok := jsonx.FirstObject("Sure! ```json\n{\"score\": 1}\n```")
//	// raw == `{"score": 1}`, ok == true
package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
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

const hexDigits = "0123456789abcdef"

// AppendString appends s to dst as a JSON string. Unlike encoding/json it does not escape
// <, > and &; invalid UTF-8 becomes U+FFFD, and U+2028/U+2029 are escaped so the output
// stays valid JavaScript.
func AppendString(dst []byte, s string) []byte {
	return append(AppendEscaped(append(dst, '"'), s), '"')
}

// AppendEscaped appends s as AppendString does, without the surrounding quotes. Pieces of a
// string escaped one by one concatenate to the escaping of the whole when no cut falls
// inside a UTF-8 sequence (e.g. each cut is next to an ASCII byte), so constant parts of a
// value can be escaped once.
func AppendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		i = plainRun(s, i)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// plainRun returns the end of the run of bytes from i that AppendString copies as they are
// (printable ASCII other than '"' and '\\'), eight bytes at a time: model text and prompts are
// mostly such runs.
func plainRun(s string, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8] // one bounds check for the eight loads (combined into one)
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		q, bs := w^(lo*'"'), w^(lo*'\\')
		// A byte below 0x20, a zero byte of q or bs (a quote or backslash), or a high bit.
		if ((w-lo*0x20)|(q-lo)|(bs-lo)|w)&hi != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			break
		}
	}
	return i
}

// StringLen is len(AppendString(nil, s)), computed without building it, to size buffers.
func StringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		j := plainRun(s, i)
		n += j - i
		if i = j; i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != '"' && c != '\\':
				n++
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
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
