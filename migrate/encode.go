package migrate

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// encode writes the migrated document. The library drops blank lines, which in eval files
// separate the top-level sections, so each top-level pair is encoded on its own and a blank
// line put back before those that had one in the source (like: a key that took another's
// place is spaced as that one was).
func encode(doc *yaml.Node, src []byte, like map[*yaml.Node]*yaml.Node) ([]byte, error) {
	root := doc.Content[0]
	opts := []yaml.Option{yaml.WithIndent(indentOf(src)), yaml.WithCompactSeqIndent(compactSeqs(root)), yaml.WithLineWidth(-1)}
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 {
		return yaml.Dump(doc, opts...)
	}
	lines := strings.Split(string(src), "\n")
	var blankBefore func(i int) bool
	blankBefore = func(i int) bool {
		k := root.Content[i]
		if o := like[k]; o != nil { // a key moved here: spaced as the one it replaced
			k = o
		}
		if k.Line == 0 { // a key migrate added: spaced as the next key read from the file
			if i+2 < len(root.Content) {
				return blankBefore(i + 2)
			}
			return true
		}
		if k.Line <= 1 {
			return false
		}
		first := k.Line - strings.Count(k.HeadComment, "\n") - 1
		if k.HeadComment == "" {
			first = k.Line
		}
		return first >= 2 && first-2 < len(lines) && strings.TrimSpace(lines[first-2]) == ""
	}
	var out bytes.Buffer
	if doc.HeadComment != "" {
		out.WriteString(doc.HeadComment + "\n\n")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		part := mapping(k, v)
		if i == 0 {
			part.HeadComment = root.HeadComment
		}
		if i+2 >= len(root.Content) {
			part.FootComment = root.FootComment
		}
		b, err := yaml.Dump(part, opts...)
		if err != nil {
			return nil, err
		}
		if i > 0 && blankBefore(i) {
			out.WriteByte('\n')
		}
		out.Write(b)
	}
	if doc.FootComment != "" {
		out.WriteString("\n" + doc.FootComment + "\n")
	}
	return out.Bytes(), nil
}

// indentOf is the source's indentation step: the first indented line's indent (2 to 9),
// else 2.
func indentOf(src []byte) int {
	for line := range strings.SplitSeq(string(src), "\n") {
		t := strings.TrimLeft(line, " ")
		if t == "" || t == line || strings.HasPrefix(t, "#") {
			continue
		}
		if n := len(line) - len(t); n >= 2 && n <= 9 {
			return n
		}
		return 2
	}
	return 2
}

// compactSeqs tells whether the source writes a block list under a key at the key's own
// column ("key:\n- a") rather than indented ("key:\n  - a", the default).
func compactSeqs(n *yaml.Node) bool {
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node) (compact, found bool)
	walk = func(n *yaml.Node) (bool, bool) {
		if n == nil || seen[n] {
			return false, false
		}
		seen[n] = true
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && v.Content[0].Line > k.Line {
					return v.Content[0].Column-2 <= k.Column, true
				}
			}
		}
		for _, c := range n.Content {
			if compact, found := walk(c); found {
				return compact, true
			}
		}
		return false, false
	}
	compact, _ := walk(n)
	return compact
}
