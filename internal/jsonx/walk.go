package jsonx

import (
	"encoding/json"
	"unicode/utf8"
)

// Members calls fn with the raw key (quotes included) and raw value of each member of the
// JSON object raw, in order, without decoding anything. raw must be valid JSON (as returned
// by FirstObject); it returns false when raw is not an object.
func Members(raw []byte, fn func(key, value []byte)) bool {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i++
	for {
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return true
		}
		ks := i
		i = skipValue(raw, i)
		key := raw[ks:i]
		i = skipWS(raw, i)
		i++ // ':'
		i = skipWS(raw, i)
		vs := i
		i = skipValue(raw, i)
		fn(key, raw[vs:i])
		i = skipWS(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
}

// Elements calls fn with each raw element of the JSON array raw; it returns false when raw
// is not an array. raw must be valid JSON.
func Elements(raw []byte, fn func(value []byte)) bool {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i++
	for {
		i = skipWS(raw, i)
		if i >= len(raw) || raw[i] == ']' {
			return true
		}
		vs := i
		i = skipValue(raw, i)
		fn(raw[vs:i])
		i = skipWS(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
}

// String decodes the raw JSON value as a string, as json.Unmarshal into a string would
// (invalid UTF-8 becomes U+FFFD). ok is false when the value is not a string (null too).
func String(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	plain := true
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain || (!hasByte(body, '\\') && utf8.Valid(body)) {
		return string(body), true
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just past the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		end, _ := matchContainer(b, i)
		return end
	}
	// number, true, false, null: up to the next delimiter
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n', ':':
			return i
		}
		i++
	}
	return i
}

// matchContainer returns the index just past the object or array opening at b[start].
func matchContainer(b []byte, start int) (int, bool) {
	depth := 0
	for k := start; k < len(b); k++ {
		switch b[k] {
		case '"':
			k = skipValue(b, k) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return k + 1, true
			}
		}
	}
	return len(b), false
}
