package migrate

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// blankMark stands, as a comment line, for a blank line of the source until the encoded text
// is written: the YAML library drops blank lines, which in eval files separate sections and
// tests.
const blankMark = "#~agentv-migrate:blank-line~"

// encode writes the migrated document with the source's indentation, list style and blank
// lines (blanks: the nodes that had one before them, from spacing). like maps a key that
// took another's place to that key (spaced as it was).
func encode(doc *yaml.Node, src []byte, blanks map[*yaml.Node]bool, like map[*yaml.Node]*yaml.Node) ([]byte, error) {
	root := doc.Content[0]
	markBlanks(root, blanks, like)
	out, err := yaml.Dump(doc, yaml.WithIndent(indentOf(src)), yaml.WithCompactSeqIndent(compactSeqs(root)), yaml.WithLineWidth(-1))
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(out, []byte(blankMark)) {
		return out, nil
	}
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == blankMark {
			lines[i] = ""
		}
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// spacing finds the mapping keys and list items of the source (not the first of their
// parent) with a blank line before them or before their comment, before migrate moves any.
func spacing(root *yaml.Node, src []byte) map[*yaml.Node]bool {
	lines := strings.Split(string(src), "\n")
	blanks := map[*yaml.Node]bool{}
	check := func(n *yaml.Node) {
		first := n.Line
		if n.HeadComment != "" {
			first -= strings.Count(n.HeadComment, "\n") + 1
		}
		if n.Line > 0 && first >= 2 && first-2 < len(lines) && strings.TrimSpace(lines[first-2]) == "" {
			blanks[n] = true
		}
	}
	walk(root, func(n *yaml.Node) {
		switch {
		case n.Style&yaml.FlowStyle != 0:
		case n.Kind == yaml.MappingNode:
			for i := 2; i+1 < len(n.Content); i += 2 {
				check(n.Content[i])
			}
		case n.Kind == yaml.SequenceNode:
			for i := 1; i < len(n.Content); i++ {
				check(n.Content[i])
			}
		}
	})
	return blanks
}

// markBlanks puts blankMark in the head comment of each key and item spacing found (the
// first of a mapping or list excepted: its blank line would open its parent). A key migrate
// added at the top level is spaced as the next key read from the file.
func markBlanks(root *yaml.Node, blanks map[*yaml.Node]bool, like map[*yaml.Node]*yaml.Node) {
	blank := func(n *yaml.Node) bool {
		if o := like[n]; o != nil {
			return blanks[o]
		}
		return blanks[n]
	}
	var marks []*yaml.Node
	walk(root, func(n *yaml.Node) {
		switch {
		case n.Style&yaml.FlowStyle != 0:
		case n.Kind == yaml.MappingNode:
			for i := 2; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Line == 0 && n == root && like[k] == nil {
					for j := i + 2; j < len(n.Content); j += 2 {
						if n.Content[j].Line > 0 || like[n.Content[j]] != nil {
							if blank(n.Content[j]) {
								marks = append(marks, k)
							}
							break
						}
					}
					continue
				}
				if blank(k) {
					marks = append(marks, k)
				}
			}
		case n.Kind == yaml.SequenceNode:
			for i := 1; i < len(n.Content); i++ {
				if blank(n.Content[i]) {
					marks = append(marks, n.Content[i])
				}
			}
		}
	})
	for _, n := range marks {
		n.HeadComment = joinComments(blankMark, n.HeadComment)
	}
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
