package suite

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/textfmt"
)

// Limits that keep hostile input (alias bombs, recursive aliases) from exhausting memory.
const (
	maxJSONDepth = 512
	maxJSONBytes = 16 << 20
)

var errTooLarge = errors.New("value is too large or too deeply nested (check for recursive YAML aliases)")

// Deref follows alias nodes to their target.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// Entry is one key/value pair of a mapping node.
type Entry struct {
	Key     string
	KeyNode *yaml.Node // key node (for positions)
	Value   *yaml.Node // value node, aliases followed
	dupe    *yaml.Node // key node of an earlier, overridden occurrence (for a warning)
}

// isMergeKey reports whether k is a YAML merge key `<<` written plain.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0
}

// MapEntries returns the pairs of a mapping in source order with merge keys (`<<: *anchor`)
// expanded; explicit keys override merged ones and a later duplicate key replaces an earlier one
// in place (reported through Entry.dupe).
func MapEntries(m *yaml.Node) []Entry {
	return entriesMerged(m, nil)
}

// entriesMerged is entries; visited holds the mappings already merged in this call, so
// self-referencing or repeated merges cannot recurse or blow up exponentially.
func entriesMerged(m *yaml.Node, visited map[*yaml.Node]bool) []Entry {
	m = Deref(m)
	if m == nil || m.Kind != yaml.MappingNode || visited[m] {
		return nil
	}
	out := make([]Entry, 0, len(m.Content)/2)
	var merged []Entry
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], Deref(m.Content[i+1])
		if isMergeKey(k) {
			if visited == nil {
				visited = map[*yaml.Node]bool{}
			}
			visited[m] = true
			srcs := []*yaml.Node{v}
			if v != nil && v.Kind == yaml.SequenceNode {
				srcs = v.Content
			}
			for _, s := range srcs {
				if s = Deref(s); s != nil && !visited[s] {
					merged = append(merged, entriesMerged(s, visited)...)
					visited[s] = true
				}
			}
			continue
		}
		name := keyString(k)
		if j := findKey(out, name); j >= 0 {
			out[j].dupe = out[j].KeyNode
			out[j].KeyNode, out[j].Value = k, v
			continue
		}
		out = append(out, Entry{Key: name, KeyNode: k, Value: v})
	}
	for _, e := range merged {
		if findKey(out, e.Key) >= 0 {
			continue
		}
		e.dupe = nil
		out = append(out, e)
	}
	return out
}

// EntryList are the entries of a mapping, each key once (see entries).
type EntryList []Entry

// Get returns the entry of key, or nil.
func (es EntryList) Get(key string) *Entry {
	if i := findKey(es, key); i >= 0 {
		return &es[i]
	}
	return nil
}

// findKey returns the index of key in es, or -1. Mappings in eval files are small, so a linear
// scan beats a map.
func findKey(es []Entry, key string) int {
	for i := range es {
		if es[i].Key == key {
			return i
		}
	}
	return -1
}

// keyString renders a mapping key as a string.
func keyString(k *yaml.Node) string {
	k = Deref(k)
	if k == nil {
		return ""
	}
	if k.Kind == yaml.ScalarNode {
		return k.Value
	}
	var b bytes.Buffer
	if err := writeJSON(&b, k, 0); err != nil {
		return ""
	}
	return b.String()
}

// ScalarKind is a scalar's type under YAML 1.2 core schema rules (what AgentV's `yaml` package
// uses): `yes`/`no`, dates and `1_000` stay strings.
type ScalarKind uint8

const (
	ScalarString ScalarKind = iota
	ScalarNull
	ScalarBool
	ScalarInt
	ScalarFloat
)

// coreInt and coreFloat are the YAML 1.2 core schema's int and float forms.
var (
	coreInt   = regexp.MustCompile(`^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$`)
	coreFloat = regexp.MustCompile(`^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?` +
		`|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// numeric is a cheap first test: most plain scalars (ids, roles, names) are not numbers.
func numeric(s string) bool { return s != "" && strings.IndexByte("+-.0123456789", s[0]) >= 0 }

func isCoreInt(s string) bool { return numeric(s) && coreInt.MatchString(s) }

func isCoreFloat(s string) bool { return numeric(s) && coreFloat.MatchString(s) }

var (
	nullWords = []string{"", "~", "null", "Null", "NULL"}
	boolWords = []string{"true", "True", "TRUE", "false", "False", "FALSE"}
)

func Classify(n *yaml.Node) ScalarKind {
	if n.Style&yaml.TaggedStyle != 0 { // an explicit tag wins over quoting: !!int "5" is 5
		switch n.Tag {
		case "!!null":
			return ScalarNull
		case "!!bool":
			if slices.Contains(boolWords, n.Value) {
				return ScalarBool
			}
		case "!!int":
			if isCoreInt(n.Value) {
				return ScalarInt
			}
		case "!!float":
			if isCoreFloat(n.Value) || isCoreInt(n.Value) {
				return ScalarFloat
			}
		}
		return ScalarString
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return ScalarString
	}
	switch {
	case slices.Contains(nullWords, n.Value):
		return ScalarNull
	case slices.Contains(boolWords, n.Value):
		return ScalarBool
	case isCoreInt(n.Value):
		return ScalarInt
	case isCoreFloat(n.Value):
		return ScalarFloat
	}
	return ScalarString
}

// IsNull reports whether n is absent or a null scalar.
func IsNull(n *yaml.Node) bool {
	n = Deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && Classify(n) == ScalarNull)
}

// KindName names a node's type for messages.
func KindName(n *yaml.Node) string {
	n = Deref(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch Classify(n) {
		case ScalarNull:
			return "null"
		case ScalarBool:
			return "a boolean"
		case ScalarInt, ScalarFloat:
			return "a number"
		}
		return "a string"
	}
	return "an unsupported value"
}

// Number returns a scalar's numeric value.
func Number(n *yaml.Node) (float64, bool) {
	n = Deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch Classify(n) {
	case ScalarInt:
		return parseCoreInt(n.Value), true
	case ScalarFloat:
		return parseCoreFloat(n.Value), true
	}
	return 0, false
}

func parseCoreInt(s string) float64 {
	t := strings.TrimLeft(s, "+-")
	f, _ := strconv.ParseFloat(t, 64)
	if len(t) > 2 && (t[1] == 'o' || t[1] == 'x') {
		base := 8
		if t[1] == 'x' {
			base = 16
		}
		v, err := strconv.ParseUint(t[2:], base, 64)
		if f = float64(v); err != nil {
			f = math.Inf(1)
		}
	}
	if strings.HasPrefix(s, "-") {
		return -f
	}
	return f
}

func parseCoreFloat(s string) float64 {
	switch strings.ToLower(strings.TrimLeft(s, "+")) {
	case ".inf":
		return math.Inf(1)
	case "-.inf":
		return math.Inf(-1)
	case ".nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// scalarJSON renders a scalar as a JSON value.
func scalarJSON(b *bytes.Buffer, n *yaml.Node) {
	switch Classify(n) {
	case ScalarNull:
		b.WriteString("null")
	case ScalarBool:
		b.WriteString(strings.ToLower(n.Value))
	case ScalarInt:
		if strings.ContainsAny(n.Value, "ox") {
			b.WriteString(textfmt.JSNumber(parseCoreInt(n.Value)))
			return
		}
		// Decimal integers keep every digit (JavaScript would round past 2^53).
		digits := strings.TrimLeft(n.Value, "+-0")
		if digits != "" && n.Value[0] == '-' {
			b.WriteByte('-')
		}
		b.WriteString(cmp.Or(digits, "0"))
	case ScalarFloat:
		b.WriteString(textfmt.JSNumber(parseCoreFloat(n.Value)))
	default:
		writeJSONString(b, n.Value)
	}
}

// writeJSONString writes s as a JSON string with JSON.stringify's escaping (no HTML escaping;
// encoding/json would also escape U+2028 and U+2029).
func writeJSONString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch {
		case c >= 0x20 && c != '"' && c != '\\':
			b.WriteByte(c)
		case c >= 0x20:
			b.WriteByte('\\')
			b.WriteByte(c)
		case strings.IndexByte("\b\f\n\r\t", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte("bfnrt"[strings.IndexByte("\b\f\n\r\t", c)])
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
		i++
	}
	b.WriteByte('"')
}

// writeJSON renders a node as compact JSON in source key order.
func writeJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > maxJSONDepth || b.Len() > maxJSONBytes {
		return errTooLarge
	}
	n = Deref(n)
	if n == nil {
		b.WriteString("null")
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeJSON(b, n.Content[0], depth+1)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i, e := range MapEntries(n) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, e.Key)
			b.WriteByte(':')
			if err := writeJSON(b, e.Value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		scalarJSON(b, n)
	default:
		b.WriteString("null")
	}
	return nil
}

// ToJSON renders a node as compact JSON.
func ToJSON(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, n, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// prettyJSON indents compact JSON with two spaces, as JSON.stringify(v, null, 2) does.
func prettyJSON(compact []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return string(compact)
	}
	return b.String()
}
