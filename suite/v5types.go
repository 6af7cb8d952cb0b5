package suite

import (
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// AgentV 5.x records an assertion under the type name the file wrote (`script`, `token-usage`,
// `llm-rubric`; a list of plain strings is one `llm-rubric`), where 4.x and 2.5 record the
// grader's own type. Our graders keep one type each; the written name rides along in
// EvaluatorSpec.RecordType, found again by the entry's position once the test is built.

// v5Pos is where an assertion entry starts in its file.
type v5Pos struct{ line, col int }

// v5WrittenTypes adds the type name each entry of an assert list records, by position:
// mapping entries their `type` (a `not-trajectory:` one its trajectory type, as 5.x's parser
// turns it into an inverse check), the first plain string `llm-rubric`, assert-set members
// likewise.
func v5WrittenTypes(items []*yaml.Node, into map[v5Pos]string) {
	sawString := false
	for _, it := range items {
		switch d := deref(it); {
		case d == nil:
		case isString(d) && strings.TrimSpace(d.Value) != "":
			if !sawString {
				into[v5Pos{d.Line, d.Column}] = "llm-rubric"
				sawString = true
			}
		case d.Kind == yaml.MappingNode:
			t := deref(valueOf(d, "type"))
			if t == nil || t.Kind != yaml.ScalarNode {
				continue
			}
			written := t.Value
			if rest, ok := strings.CutPrefix(written, "not-"); ok && strings.HasPrefix(rest, "trajectory:") {
				written = rest
			}
			into[v5Pos{d.Line, d.Column}] = written
			if members := deref(valueOf(d, "assert")); members != nil && members.Kind == yaml.SequenceNode {
				v5WrittenTypes(members.Content, into)
			}
		}
	}
}

// setRecordTypes gives each spec built from a 5.x entry the type name the file wrote. A name
// is taken only where it is a name of the spec's own type (or llm-rubric on the LLM judge), so
// an entry of another file at the same line and column (default_test: file://…) cannot lend
// its name.
func setRecordTypes(specs []*EvaluatorSpec, written map[v5Pos]string) {
	for _, s := range specs {
		if w, ok := written[v5Pos{s.Pos.Line, s.Pos.Col}]; ok && w != s.Type && v5NamesType(w, s.Type) {
			s.RecordType = w
		}
		setRecordTypes(s.Members, written)
	}
}

// v5NamesType reports whether the 5.x type name w is read as our type typ: through the 4.x
// name the front-end maps it to (v5ToV4, then the 4.x converter's), or registered under it (a
// not-trajectory: type is registered whole).
func v5NamesType(w, typ string) bool {
	switch w {
	case "llm-rubric", "llm-grader":
		return typ == TypeLLMJudge
	case "script":
		return typ == TypeCodeJudge
	}
	if typ == "not-"+w {
		return true
	}
	t, ok := LookupEvaluator(w)
	if !ok {
		t, ok = LookupEvaluator(strings.ReplaceAll(w, "-", "_")) // token-usage, field-accuracy
	}
	return ok && t.Name == typ
}
