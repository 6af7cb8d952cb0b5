package migrate

import (
	yaml "go.yaml.in/yaml/v4"
)

// Helpers over a mapping node's key/value pairs. They edit in place, so the comments and
// styles of every node not touched stay as they were read.

// find returns the index of key's key node in mapping m (pairs: key at i, value at i+1), or -1.
func find(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return i
		}
	}
	return -1
}

// get returns key's value in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if i := find(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return nil
}

// keyNode returns key's key node in mapping m, or nil.
func keyNode(m *yaml.Node, key string) *yaml.Node {
	if i := find(m, key); i >= 0 {
		return m.Content[i]
	}
	return nil
}

// has tells whether mapping m sets key.
func has(m *yaml.Node, key string) bool { return find(m, key) >= 0 }

// rename changes key's name in place (its value, comments and position stay); false when m
// has no key or already has to.
func rename(m *yaml.Node, key, to string) bool {
	i := find(m, key)
	if i < 0 || has(m, to) {
		return false
	}
	m.Content[i].Value = to
	return true
}

// remove takes key out of m and returns its key and value nodes (nil when absent), to be put
// elsewhere with their comments.
func remove(m *yaml.Node, key string) (k, v *yaml.Node) {
	i := find(m, key)
	if i < 0 {
		return nil, nil
	}
	k, v = m.Content[i], m.Content[i+1]
	m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
	return k, v
}

// drop deletes key from m for good. A comment above it moves to the next key, so the
// deletion does not lose it.
func drop(m *yaml.Node, key string) {
	i := find(m, key)
	if i < 0 {
		return
	}
	k := m.Content[i]
	remove(m, key)
	if k.HeadComment != "" && i < len(m.Content) {
		next := m.Content[i]
		next.HeadComment = joinComments(k.HeadComment, next.HeadComment)
	}
}

// insertAt puts the pair key: v at pair position i (an index into m.Content, even).
func insertAt(m *yaml.Node, i int, key *yaml.Node, v *yaml.Node) {
	i = min(max(i, 0), len(m.Content))
	m.Content = append(m.Content[:i], append([]*yaml.Node{key, v}, m.Content[i:]...)...)
}

// set replaces key's value, or appends the pair when m lacks key.
func set(m *yaml.Node, key string, v *yaml.Node) {
	if i := find(m, key); i >= 0 {
		m.Content[i+1] = v
		return
	}
	m.Content = append(m.Content, str(key), v)
}

// child returns key's mapping in m, creating it (empty, appended, or at pair position at when
// at >= 0) when absent; nil when key holds something other than a mapping.
func child(m *yaml.Node, key string, at int) *yaml.Node {
	if v := get(m, key); v != nil {
		if v.Kind == yaml.MappingNode {
			return v
		}
		return nil
	}
	v := mapping()
	if at >= 0 {
		insertAt(m, at, str(key), v)
	} else {
		m.Content = append(m.Content, str(key), v)
	}
	return v
}

// str is a new plain string scalar.
func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// quoted is a new double-quoted string scalar (for values such as "{{ input }}" that YAML
// would read as a mapping unquoted).
func quoted(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

// num is a new integer scalar.

func mapping(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: kv}
}

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

// scalar returns n's value when n is a scalar (aliases followed), else "", false.
func scalar(n *yaml.Node) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

// deref follows an alias to what it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// isNull tells whether n is absent or YAML null.
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// lineOf is n's line, or the fallback when n was built here.
func lineOf(n *yaml.Node, fallback int) int {
	if n != nil && n.Line > 0 {
		return n.Line
	}
	return fallback
}

func joinComments(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// moveComments gives a removed key's comments to the node that takes its place (the removed
// key keeps them too: encode still reads its spacing).
func moveComments(from, to *yaml.Node) {
	if from == nil || to == nil {
		return
	}
	to.HeadComment = joinComments(from.HeadComment, to.HeadComment)
	to.LineComment = joinComments(to.LineComment, from.LineComment)
}
