package suite

import (
	"encoding/json"

	yaml "go.yaml.in/yaml/v4"
)

// V4Metadata is a test's `metadata` merged with its file's top-level `metadata`, as AgentV
// 4.42.4 merges them (yaml-parser.ts, mergeSuiteMetadataPayload): the test's keys first, then
// the file's keys the test lacks; lists concatenate the file's items first without repeats;
// mappings merge the same way, deeper down; otherwise the test's value wins. Graders receive it
// as the payload's `metadata`. Nil when neither is a mapping.
func V4Metadata(suiteMeta, testMeta *yaml.Node) json.RawMessage {
	s, t := mappingOrNil(suiteMeta), mappingOrNil(testMeta)
	if s == nil && t == nil {
		return nil
	}
	if s != nil {
		t = mergeMetadata(t, s)
	}
	b, _ := ToJSON(t) // nil on error
	return b
}

func mappingOrNil(n *yaml.Node) *yaml.Node {
	if n = Deref(n); n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// mergeMetadata merges the file's mapping s into the test's mapping t (nil: empty).
func mergeMetadata(t, s *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	idx := map[string]int{} // key → index of its value in out.Content
	if t != nil {
		for i := 0; i+1 < len(t.Content); i += 2 {
			if j, dup := idx[t.Content[i].Value]; dup {
				out.Content[j] = t.Content[i+1] // the last of repeated keys wins, as in JSON
				continue
			}
			idx[t.Content[i].Value] = len(out.Content) + 1
			out.Content = append(out.Content, t.Content[i], t.Content[i+1])
		}
	}
	for i := 0; i+1 < len(s.Content); i += 2 {
		key, sv := s.Content[i], Deref(s.Content[i+1])
		j, ok := idx[key.Value]
		if !ok {
			idx[key.Value] = len(out.Content) + 1
			out.Content = append(out.Content, key, s.Content[i+1])
			continue
		}
		tv := Deref(out.Content[j])
		switch {
		case sv.Kind == yaml.SequenceNode && tv.Kind == yaml.SequenceNode:
			out.Content[j] = mergeMetadataLists(sv, tv)
		case sv.Kind == yaml.MappingNode && tv.Kind == yaml.MappingNode:
			out.Content[j] = mergeMetadata(tv, sv)
		}
	}
	return out
}

// mergeMetadataLists is the file's items then the test's, each once: strings compare by
// value, other items by their JSON (as 4.42.4 compares them).
func mergeMetadataLists(s, t *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	seen := map[string]bool{}
	for _, list := range []*yaml.Node{s, t} {
		for _, item := range list.Content {
			key := ""
			if d := Deref(item); IsString(d) {
				key = d.Value
			} else if b, err := ToJSON(item); err == nil {
				key = string(b)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			out.Content = append(out.Content, item)
		}
	}
	return out
}
