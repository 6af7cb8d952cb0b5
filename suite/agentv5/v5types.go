package agentv5

import (
	"github.com/agentv/action/suite"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// AgentV 5.x records an assertion under the type name the file wrote (`script`, `token-usage`,
// `llm-rubric`; a list of plain strings is one `llm-rubric`), where 4.x and 2.5 record the
// grader's own type. Our graders keep one type each; the written name rides along in
// EvaluatorSpec.RecordType, found again by the entry's position once the test is built. An
// llm-rubric's text value, which the 4.x entry it becomes has no key for, rides along the same
// way as EvaluatorSpec.Criteria.

// v5Pos is where an assertion entry starts in its file.
type v5Pos struct{ line, col int }

// v5Written is what an entry wrote that its spec keeps: its type name, an llm-rubric's text.
type v5Written struct{ typ, criteria string }

// v5WrittenTypes adds the type name each entry of an assert list records, by position:
// mapping entries their `type` (a `not-trajectory:` one its trajectory type, as 5.x's parser
// turns it into an inverse check), the first plain string `llm-rubric`, assert-set members
// likewise.
func v5WrittenTypes(items []*yaml.Node, into map[v5Pos]v5Written) {
	sawString := false
	for _, it := range items {
		switch d := suite.Deref(it); {
		case d == nil:
		case suite.IsString(d) && strings.TrimSpace(d.Value) != "":
			if !sawString {
				into[v5Pos{d.Line, d.Column}] = v5Written{typ: "llm-rubric"}
				sawString = true
			}
		case d.Kind == yaml.MappingNode:
			t := suite.Deref(suite.ValueOf(d, "type"))
			if t == nil || t.Kind != yaml.ScalarNode {
				continue
			}
			written := t.Value
			if rest, ok := strings.CutPrefix(written, "not-"); ok && (strings.HasPrefix(rest, "trajectory:") || rest == "llm-rubric") {
				written = rest // recorded under its plain type; a negated rubric keeps its text
			}
			w := v5Written{typ: written}
			if v := suite.Deref(suite.ValueOf(d, "value")); written == "llm-rubric" && v != nil && v.Kind == yaml.ScalarNode && !suite.IsNull(v) {
				w.criteria = v.Value
			}
			into[v5Pos{d.Line, d.Column}] = w
			if members := suite.Deref(suite.ValueOf(d, "assert")); members != nil && members.Kind == yaml.SequenceNode {
				v5WrittenTypes(members.Content, into)
			}
		}
	}
}

// setRecordTypes gives each spec built from the 5.x entries of one list the type name the file
// wrote (and an llm-rubric its text as criteria). A name is taken only where it names the
// spec's own type.
func setRecordTypes(specs []*suite.EvaluatorSpec, written map[v5Pos]v5Written) {
	for _, s := range specs {
		setRecordTypes(s.Members, written)
		w, ok := written[v5Pos{s.Pos.Line, s.Pos.Col}]
		if !ok || !v5NamesType(w.typ, s.Type) {
			continue
		}
		if w.typ != s.Type {
			s.RecordType = w.typ
		}
		if w.criteria != "" && s.Prompt == nil {
			s.Criteria = w.criteria
		}
	}
}

// v5NamesType reports whether the 5.x type name w is read as our type typ: through the 4.x
// name the front-end maps it to (v5ToV4, then the 4.x converter's), or registered under it (a
// not-trajectory: type is registered whole).
func v5NamesType(w, typ string) bool {
	switch w {
	case "llm-rubric", "llm-grader":
		return typ == suite.TypeLLMJudge
	case "script":
		return typ == suite.TypeCodeJudge
	}
	if typ == "not-"+w {
		return true
	}
	t, ok := suite.LookupEvaluator(w)
	if !ok {
		t, ok = suite.LookupEvaluator(strings.ReplaceAll(w, "-", "_")) // token-usage, field-accuracy
	}
	return ok && t.Name == typ
}
