package evaluators

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/agentv/action/internal/jsonx"
)

// snake4 spells a key as AgentV 4.42.4's toSnakeCaseDeep does (packages/core/src/evaluation/
// case-conversion.ts): a key that starts with an ASCII capital is a proper name (a tool such as
// Read) and stays; in any other key each ASCII capital becomes `_` and its lowercase
// (riskLevel → risk_level, userID → user_i_d).
func snake4(key string) string {
	if key == "" || isUpper(key[0]) || !slices.ContainsFunc([]byte(key), isUpper) {
		return key
	}
	b := make([]byte, 0, len(key)+4)
	for i := 0; i < len(key); i++ {
		if c := key[i]; isUpper(c) {
			b = append(b, '_', c+'a'-'A')
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// snakeKeys4 renames every object key of a JSON document with snake4, at every depth: 4.42.4
// converts the whole payload, the user's config, message contents and tool inputs included. Two
// keys that end up the same keep the first one's place and the last one's value, as the
// JavaScript object 4.42.4 builds does. Values are copied as written, whitespace dropped.
//
// One pass over the bytes, members written in place, rather than a decode and encode:
// BenchmarkSnakeKeys4 (a 237 kB transcript) took 3.8 ms with a buffer a member, 1.3-1.8 ms in
// place (0.7 ms of it json.Valid, which the scan relies on).
func snakeKeys4(src []byte) ([]byte, error) {
	if !json.Valid(src) {
		return nil, errors.New("payload: not valid JSON")
	}
	dst := make([]byte, 0, len(src)+len(src)/16)
	var objects []snakeObject // the objects open at i
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
		case '{':
			objects = append(objects, snakeObject{start: len(dst)})
			dst = append(dst, c)
		case '}':
			o := &objects[len(objects)-1]
			if n := len(o.members); n > 0 {
				o.members[n-1].end = len(dst)
			}
			dst = append(o.close(dst), c)
			objects = objects[:len(objects)-1]
		case '"':
			end := i
			for {
				end += 1 + bytes.IndexByte(src[end+1:], '"')
				k := end - 1
				for src[k] == '\\' {
					k--
				}
				if (end-k)%2 == 1 { // an even number of backslashes before it: the closing quote
					break
				}
			}
			raw := src[i : end+1]
			i = end
			colon := i + 1
			for colon < len(src) && bytes.IndexByte([]byte(" \t\n\r"), src[colon]) >= 0 {
				colon++
			}
			if colon == len(src) || src[colon] != ':' {
				dst = append(dst, raw...)
				continue
			}
			i = colon
			dst = objects[len(objects)-1].key(dst, raw)
		default:
			dst = append(dst, c)
		}
	}
	return dst, nil
}

// snakeObject is an object being written: where each member is in the output, in case two of
// its keys end up the same name (rare: the object is then rebuilt).
type snakeObject struct {
	start    int
	members  []snakeMember
	at       map[string]int // by name, once there are enough members for a linear search to cost
	repeated bool
}

type snakeMember struct {
	name          string
	key, val, end int // offsets in dst
	last          int // the member whose value wins; -1 for a repeat, not written again
}

// key writes an object's key, renamed, and its colon.
func (o *snakeObject) key(dst, raw []byte) []byte {
	key := string(raw[1 : len(raw)-1])
	escaped := bytes.IndexByte(raw, '\\') >= 0
	if escaped {
		_ = json.Unmarshal(raw, &key) // valid JSON: a string literal decodes
	}
	name := snake4(key)
	if n := len(o.members); n > 0 {
		o.members[n-1].end = len(dst) - 1 // before its comma
	}
	m := snakeMember{name: name, key: len(dst), last: len(o.members)}
	switch {
	case name == key:
		dst = append(dst, raw...)
	case !escaped: // only letters and _ were added to a key that needed no escapes
		dst = append(append(append(dst, '"'), name...), '"')
	default:
		enc, _ := jsonx.Marshal(name)
		dst = append(dst, enc...)
	}
	dst = append(dst, ':')
	m.val = len(dst)
	var idx int
	var seen bool
	if o.at != nil {
		idx, seen = o.at[name]
	} else {
		idx = slices.IndexFunc(o.members, func(x snakeMember) bool { return x.name == name })
		seen = idx >= 0
	}
	if seen {
		o.repeated = true
		o.members[idx].last = len(o.members)
		m.last = -1
	}
	o.members = append(o.members, m)
	switch {
	case seen:
	case o.at != nil:
		o.at[name] = len(o.members) - 1
	case len(o.members) > 16:
		o.at = make(map[string]int, 2*len(o.members))
		for j, x := range o.members {
			if x.last >= 0 {
				o.at[x.name] = j
			}
		}
	}
	return dst
}

// close rebuilds the object's members when a name was repeated: each in its first place with
// its last value.
func (o *snakeObject) close(dst []byte) []byte {
	if !o.repeated {
		return dst
	}
	body := bytes.Clone(dst[o.start:])
	dst = append(dst[:o.start], '{')
	for _, m := range o.members {
		if m.last < 0 {
			continue
		}
		if len(dst) > o.start+1 {
			dst = append(dst, ',')
		}
		w := o.members[m.last]
		dst = append(dst, body[m.key-o.start:m.val-o.start]...)
		dst = append(dst, body[w.val-o.start:w.end-o.start]...)
	}
	return dst
}
