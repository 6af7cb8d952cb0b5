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

// caseParser holds the state of one case being parsed.
type caseParser struct {
	l      *loader
	c      *Case
	failed bool
}

// fail reports an error that keeps the case from loading.
func (p *caseParser) fail(n *yaml.Node, kind, format string, args ...any) {
	p.failed = true
	p.l.errorf(n, kind, p.c.ID, "%s", fmt.Sprintf(format, args...)+notLoaded(p.c.ID))
}

func (p *caseParser) warn(n *yaml.Node, kind, format string, args ...any) {
	p.l.warnf(n, kind, p.c.ID, format, args...)
}

// text reads a scalar field as text (numbers and booleans as written); null is absent.
func (p *caseParser) text(e *kv) (string, bool) {
	if e == nil || isNull(e.v) {
		return "", false
	}
	if e.v.Kind != yaml.ScalarNode {
		p.fail(e.v, KindCase, "%q must be a string, got %s", e.key, kindName(e.v))
		return "", false
	}
	return e.v.Value, true
}

// caseFields are the values every dialect's case has, each front-end finding them under its
// own keys (a 4.x test's criteria is a 2.5 case's expected_outcome); build reads them for all.
type caseFields struct {
	outcome, conversation, input, expected, reference *kv
	target                                            *kv // the case's execution.target (2.5)
	execEvals, evals, evaluator, rubrics              *kv
}

// newCase starts a case at mapping n with its id, so every later message can name it.
func (l *loader) newCase(n *yaml.Node, idKey *kv) *caseParser {
	p := &caseParser{l: l, c: &Case{Suite: l.s, Line: n.Line, Col: n.Column}}
	c := p.c
	if idKey == nil || isNull(idKey.v) || (idKey.v.Kind == yaml.ScalarNode && strings.TrimSpace(idKey.v.Value) == "") {
		p.fail(n, KindCase, "eval case has no %q", "id")
	} else if idKey.v.Kind != yaml.ScalarNode {
		p.fail(idKey.v, KindCase, "%q must be a string, got %s", "id", kindName(idKey.v))
	} else {
		c.ID = idKey.v.Value
		if first, dup := l.ids[c.ID]; dup {
			p.fail(idKey.v, KindDuplicateID, "duplicate case id %q: first defined at line %d, again at line %d", c.ID, first, idKey.v.Line)
		} else {
			l.ids[c.ID] = idKey.v.Line
		}
	}
	return p
}

// parseCase reads one AgentV 2.5 case node. It returns nil when the case cannot be loaded.
func (l *loader) parseCase(item *yaml.Node) *Case {
	n := deref(item)
	if n == nil || n.Kind != yaml.MappingNode {
		l.errorf(cmp.Or(n, item), KindCase, "", "an eval case must be a mapping with id and input, got %s%s",
			kindName(n), notLoaded(""))
		return nil
	}
	es := entries(n)
	fields := kvs(es)
	p := l.newCase(n, fields.get("id"))
	id := p.c.ID
	l.dupes(es, id)

	l.unknownKeys(es, "in eval case", id, caseKeys)
	f := caseFields{
		outcome:      p.canonical(fields, "expected_outcome", "outcome"),
		conversation: fields.get("conversation_id"),
		input:        p.canonical(fields, "input_messages", "input", "question"),
		expected:     p.canonical(fields, "expected_messages", "expected_output"),
		reference:    fields.get("reference_answer"),
		evals:        fields.get("evaluators"),
		evaluator:    fields.get("evaluator"),
		rubrics:      fields.get("rubrics"),
	}
	l.execution(fields.get("execution"), id, execKeys, "target and evaluators", func(at *yaml.Node, format string, args ...any) {
		p.fail(at, KindCase, format, args...)
	}, func(x *kv) bool {
		switch x.key {
		case "target":
			f.target = x
		case "evaluators":
			f.execEvals = x
		default:
			return false
		}
		return true
	})
	return p.build(f)
}

// build reads the fields of a case; nil when the case cannot be loaded.
func (p *caseParser) build(f caseFields) *Case {
	l, c := p.l, p.c
	if v, ok := p.text(f.outcome); ok {
		c.ExpectedOutcome = l.str(v)
	}
	if v, ok := p.text(f.conversation); ok {
		c.ConversationID = v
	}
	p.input(f.input)
	p.expected(f.expected)
	p.reference(f.reference)
	c.Question = l.str(question(c.Input))
	if v, ok := p.text(f.target); ok {
		c.Target = l.str(v)
	}
	p.evaluators(f.execEvals, f.evals, f.evaluator, f.rubrics)
	if p.failed {
		return nil
	}
	return c
}

// canonical returns the first of (at most three) keys set, canonical names first, and warns
// about the others.
func (p *caseParser) canonical(fields kvs, keys ...string) *kv {
	var cands [3]*kv
	for i, k := range keys {
		cands[i] = fields.get(k)
	}
	return firstSet(cands[:len(keys)], func(e, chosen *kv) {
		p.warn(e.kn, KindIgnored, "%q ignored: %q is also set", e.key, chosen.key)
	})
}

// firstSet returns the first of cands (nil entries allowed) whose value is not null, and
// reports each later one set through ignored.
func firstSet(cands []*kv, ignored func(e, chosen *kv)) *kv {
	var chosen *kv
	for _, e := range cands {
		switch {
		case e == nil || isNull(e.v):
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
func (p *caseParser) evaluators(execEvals, evals, evaluator, rubrics *kv) {
	l, c := p.l, p.c
	list := l.evaluatorSource(execEvals, evals, evaluator, c.ID)
	if list != nil {
		if !l.addListDiags(list, c.ID, func(id string) string { return fmt.Sprintf(" (case %q not loaded)", id) }) {
			p.failed = true
		}
		c.Evaluators = list.specs
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
		c.Evaluators = sl.specs // shared: cases inheriting the suite list point at the same specs
	}
	if rubrics == nil || isNull(rubrics.v) {
		return
	}
	if rubrics.v.Kind != yaml.SequenceNode {
		p.fail(rubrics.v, KindCase, "%q must be a list of rubric strings or mappings, got %s", "rubrics", kindName(rubrics.v))
		return
	}
	if len(rubrics.v.Content) == 0 {
		return
	}
	for _, r := range rubrics.v.Content {
		r = deref(r)
		if r == nil || isNull(r) || (r.Kind != yaml.ScalarNode && r.Kind != yaml.MappingNode) {
			p.fail(r, KindCase, "a rubric must be a string or a mapping, got %s", kindName(r))
			return
		}
	}
	items := p.json(rubrics.v, "rubrics")
	if items == nil {
		return
	}
	used := map[string]bool{}
	for _, s := range c.Evaluators {
		used[s.Name] = true
	}
	spec := &EvaluatorSpec{
		Name: uniqueName("rubric", used), Type: TypeLLMJudge, Weight: 1,
		Pos:      Position{File: l.file, Line: rubrics.kn.Line, Col: rubrics.kn.Column},
		Settings: objectJSON([]jsonField{{"rubrics", items}}),
	}
	if t, ok := LookupEvaluator(TypeLLMJudge); ok {
		root := &yaml.Node{Kind: yaml.MappingNode, Line: rubrics.kn.Line, Column: rubrics.kn.Column, Content: []*yaml.Node{rubrics.kn, rubrics.v}}
		parseSettings(t, spec, root, func(at *yaml.Node, msg string) { p.fail(at, KindEvaluator, "%s", msg) })
		if p.failed {
			return
		}
	}
	c.Evaluators = slices.Concat([]*EvaluatorSpec{spec}, c.Evaluators) // a new slice: the suite's list is shared
}
