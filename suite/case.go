package suite

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// caseKeys are the keys an eval case may have (`description` and `note` are AgentV comments).
var caseKeys = []string{"id", "description", "note", "input_messages", "input", "question", "expected_outcome",
	"outcome", "expected_messages", "expected_output", "reference_answer", "conversation_id", "execution",
	"evaluators", "evaluator", "rubrics"}

// CaseParser holds the state of one case being parsed.
type CaseParser struct {
	l      *Reader
	c      *Case
	failed bool
}

// fail reports an error that keeps the case from loading.
func (p *CaseParser) fail(n *yaml.Node, kind, format string, args ...any) {
	p.failed = true
	p.l.Errorf(n, kind, p.c.ID, "%s", fmt.Sprintf(format, args...)+NotLoaded(p.c.ID))
}

func (p *CaseParser) warn(n *yaml.Node, kind, format string, args ...any) {
	p.l.Warnf(n, kind, p.c.ID, format, args...)
}

// text reads a scalar field as text (numbers and booleans as written); null is absent.
func (p *CaseParser) text(e *Entry) (string, bool) {
	if e == nil || IsNull(e.Value) {
		return "", false
	}
	if e.Value.Kind != yaml.ScalarNode {
		p.fail(e.Value, KindCase, "%q must be a string, got %s", e.Key, KindName(e.Value))
		return "", false
	}
	return e.Value.Value, true
}

// CaseFields are the values every dialect's case has, each front-end finding them under its
// own keys (a 4.x test's criteria is a 2.5 case's expected_outcome); build reads them for all.
type CaseFields struct {
	Outcome, Conversation, Input, Expected, reference *Entry
	target                                            *Entry // the case's execution.target (2.5)
	execEvals, Evals, evaluator, rubrics              *Entry
}

// NewCase starts a case at mapping n with its id, so every later message can name it.
func (l *Reader) NewCase(n *yaml.Node, idKey *Entry) *CaseParser {
	p := &CaseParser{l: l, c: &Case{Suite: l.Suite, Line: n.Line, Col: n.Column}}
	c := p.c
	if idKey == nil || IsNull(idKey.Value) || (idKey.Value.Kind == yaml.ScalarNode && strings.TrimSpace(idKey.Value.Value) == "") {
		p.fail(n, KindCase, "eval case has no %q", "id")
	} else if idKey.Value.Kind != yaml.ScalarNode {
		p.fail(idKey.Value, KindCase, "%q must be a string, got %s", "id", KindName(idKey.Value))
	} else {
		c.ID = idKey.Value.Value
		if first, dup := l.IDs[c.ID]; dup {
			p.fail(idKey.Value, KindDuplicateID, "duplicate case id %q: first defined at line %d, again at line %d", c.ID, first, idKey.Value.Line)
		} else {
			l.IDs[c.ID] = idKey.Value.Line
		}
	}
	return p
}

// parseCase reads one AgentV 2.5 case node. It returns nil when the case cannot be loaded.
func (l *Reader) parseCase(item *yaml.Node) *Case {
	n := Deref(item)
	if n == nil || n.Kind != yaml.MappingNode {
		l.Errorf(cmp.Or(n, item), KindCase, "", "an eval case must be a mapping with id and input, got %s%s",
			KindName(n), NotLoaded(""))
		return nil
	}
	es := MapEntries(n)
	fields := EntryList(es)
	p := l.NewCase(n, fields.Get("id"))
	id := p.c.ID
	l.Dupes(es, id)

	l.UnknownKeys(es, "in eval case", id, caseKeys)
	f := CaseFields{
		Outcome:      p.canonical(fields, "expected_outcome", "outcome"),
		Conversation: fields.Get("conversation_id"),
		Input:        p.canonical(fields, "input_messages", "input", "question"),
		Expected:     p.canonical(fields, "expected_messages", "expected_output"),
		reference:    fields.Get("reference_answer"),
		Evals:        fields.Get("evaluators"),
		evaluator:    fields.Get("evaluator"),
		rubrics:      fields.Get("rubrics"),
	}
	l.Execution(fields.Get("execution"), id, execKeys, "target and evaluators", func(at *yaml.Node, format string, args ...any) {
		p.fail(at, KindCase, format, args...)
	}, func(x *Entry) bool {
		switch x.Key {
		case "target":
			f.target = x
		case "evaluators":
			f.execEvals = x
		default:
			return false
		}
		return true
	})
	return p.Build(f)
}

// Build reads the fields of a case; nil when the case cannot be loaded.
func (p *CaseParser) Build(f CaseFields) *Case {
	l, c := p.l, p.c
	if v, ok := p.text(f.Outcome); ok {
		c.ExpectedOutcome = l.str(v)
	}
	if v, ok := p.text(f.Conversation); ok {
		c.ConversationID = v
	}
	p.input(f.Input)
	p.expected(f.Expected)
	p.reference(f.reference)
	c.Question = l.str(question(c.Input))
	if v, ok := p.text(f.target); ok {
		c.Target = l.str(v)
	}
	p.evaluators(f.execEvals, f.Evals, f.evaluator, f.rubrics)
	if p.failed {
		return nil
	}
	return c
}

// canonical returns the first of (at most three) keys set, canonical names first, and warns
// about the others.
func (p *CaseParser) canonical(fields EntryList, keys ...string) *Entry {
	var cands [3]*Entry
	for i, k := range keys {
		cands[i] = fields.Get(k)
	}
	return firstSet(cands[:len(keys)], func(e, chosen *Entry) {
		p.warn(e.KeyNode, KindIgnored, "%q ignored: %q is also set", e.Key, chosen.Key)
	})
}

// firstSet returns the first of cands (nil entries allowed) whose value is not null, and
// reports each later one set through ignored.
func firstSet(cands []*Entry, ignored func(e, chosen *Entry)) *Entry {
	var chosen *Entry
	for _, e := range cands {
		switch {
		case e == nil || IsNull(e.Value):
		case chosen == nil:
			chosen = e
		default:
			ignored(e, chosen)
		}
	}
	return chosen
}

// evaluators sets the case's list: its own, else the suite's, after inline rubrics (an
// llm_judge named "rubric").
func (p *CaseParser) evaluators(execEvals, evals, evaluator, rubrics *Entry) {
	l, c := p.l, p.c
	list := l.EvaluatorSource(execEvals, evals, evaluator, c.ID)
	if list != nil {
		if !l.AddListDiags(list, c.ID, func(id string) string { return fmt.Sprintf(" (case %q not loaded)", id) }) {
			p.failed = true
		}
		c.Evaluators = list.Specs
	} else if sl := l.suiteList; sl != nil {
		if c.ID != "" {
			sl.users = append(sl.users, c.ID)
		}
		if sl.failed {
			p.failed = true
		} else if l.opts.OnCase != nil && len(sl.users) == 1 {
			// Streaming: the first case inheriting a clean suite list runs before the file
			// ends, so the list's warnings are reported now, naming it, as they would be at the end.
			l.finishSuiteList()
		}
		c.Evaluators = sl.Specs // shared: cases inheriting the suite list point at the same specs
	}
	if rubrics == nil || IsNull(rubrics.Value) {
		return
	}
	if rubrics.Value.Kind != yaml.SequenceNode {
		p.fail(rubrics.Value, KindCase, "%q must be a list of rubric strings or mappings, got %s", "rubrics", KindName(rubrics.Value))
		return
	}
	if len(rubrics.Value.Content) == 0 {
		return
	}
	for _, r := range rubrics.Value.Content {
		r = Deref(r)
		if r == nil || IsNull(r) || (r.Kind != yaml.ScalarNode && r.Kind != yaml.MappingNode) {
			p.fail(r, KindCase, "a rubric must be a string or a mapping, got %s", KindName(r))
			return
		}
	}
	items := p.json(rubrics.Value, "rubrics")
	if items == nil {
		return
	}
	used := map[string]bool{}
	for _, s := range c.Evaluators {
		used[s.Name] = true
	}
	spec := &EvaluatorSpec{
		Name: uniqueName("rubric", used), Type: TypeLLMJudge, Weight: 1,
		Pos:      Position{File: l.file, Line: rubrics.KeyNode.Line, Col: rubrics.KeyNode.Column},
		Settings: objectJSON([]jsonField{{"rubrics", items}}),
	}
	if t, ok := LookupEvaluator(TypeLLMJudge); ok {
		root := &yaml.Node{Kind: yaml.MappingNode, Line: rubrics.KeyNode.Line, Column: rubrics.KeyNode.Column, Content: []*yaml.Node{rubrics.KeyNode, rubrics.Value}}
		parseSettings(t, spec, root, func(at *yaml.Node, msg string) { p.fail(at, KindEvaluator, "%s", msg) })
		if p.failed {
			return
		}
	}
	c.Evaluators = slices.Concat([]*EvaluatorSpec{spec}, c.Evaluators) // a new slice: the suite's list is shared
}
