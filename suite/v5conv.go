package suite

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// v5TurnKeys are the keys of a 5.x conversation turn (eval-file.schema.ts:732-736 at
// v5.3.1-next.1).
var v5TurnKeys = []string{"input", "expected_output", "assert"}

// v5Conversation reads a 5.x test's conversation keys onto the conversation model 4.x files
// use: mode, turns, aggregation, on_turn_failure and window_size as in 4.x (yaml-parser.ts:
// 1783-1803), each turn with `assert` (parseTurns). render applies the test's vars, as 5.x
// renders its turns (interpolateCaseTurns). nil when the test is not a conversation or when
// something is wrong (reported through fail).
func (l *loader) v5Conversation(n *yaml.Node, f kvs, id string, render func(*yaml.Node) *yaml.Node, fail func(*yaml.Node, string, ...any)) (conv *Conversation, ok bool) {
	mode := f.get("mode")
	if mode == nil || isNull(mode.v) {
		for _, k := range v4ConversationKeys[1:] {
			if e := f.get(k); e != nil {
				fail(e.kn, "%q needs %q", k, "mode: conversation")
			}
		}
		return nil, true
	}
	if mode.v.Kind != yaml.ScalarNode || mode.v.Value != "conversation" {
		fail(mode.v, "%q must be %q, got %s", "mode", "conversation", describe(mode.v))
		return nil, false
	}
	conv = &Conversation{Aggregation: AggregateMean, OnTurnFailure: OnTurnFailureContinue}
	ok = true
	oneOf := func(key string, allowed []string, dst *string) {
		e := f.get(key)
		if e == nil || isNull(e.v) {
			return
		}
		if e.v.Kind != yaml.ScalarNode || !slices.Contains(allowed, e.v.Value) {
			fail(e.v, "%q must be one of %s, got %s", key, strings.Join(allowed, ", "), describe(e.v))
			ok = false
			return
		}
		*dst = e.v.Value
	}
	oneOf("aggregation", v4Aggregations, &conv.Aggregation)
	oneOf("on_turn_failure", v4TurnFailures, &conv.OnTurnFailure)
	if e := f.get("window_size"); e != nil && !isNull(e.v) {
		w, isNum := number(e.v)
		if !isNum || classify(e.v) != scalarInt || w < 1 || w > math.MaxInt32 {
			fail(e.v, "%q must be a whole number of turns, at least 1, got %s", "window_size", describe(e.v))
			ok = false
		} else {
			conv.WindowSize = int(w)
		}
	}
	turns := f.get("turns")
	switch {
	case turns == nil || isNull(turns.v):
		fail(n, "%q needs a non-empty %q list", "mode: conversation", "turns")
		return nil, false
	case turns.v.Kind != yaml.SequenceNode:
		fail(turns.v, "%q must be a list of turns, each with an input, got %s", "turns", kindName(turns.v))
		return nil, false
	case len(turns.v.Content) == 0:
		fail(turns.v, "%q needs at least one turn", "turns")
		return nil, false
	}
	for i, item := range turns.v.Content {
		if t := l.v5Turn(item, i+1, id, render, fail); t != nil {
			conv.Turns = append(conv.Turns, t)
		} else {
			ok = false
		}
	}
	if !ok {
		return nil, false
	}
	return conv, true
}

// v5Turn reads one turn: its input (a string; other content as its JSON text), its
// expected_output and its assert list.
func (l *loader) v5Turn(item *yaml.Node, num int, id string, render func(*yaml.Node) *yaml.Node, fail func(*yaml.Node, string, ...any)) *Turn {
	n := deref(item)
	where := fmt.Sprintf("turn %d", num)
	if n == nil || n.Kind != yaml.MappingNode {
		fail(cmp.Or(n, item), "%s must be a mapping with an input, got %s", where, kindName(n))
		return nil
	}
	es := entries(n)
	l.dupes(es, id)
	f := kvs(es)
	for _, e := range es {
		if e.key == "assertions" {
			fail(e.kn, "%s: a turn's %q is not accepted in AgentV 5.x: write %q", where, e.key, "assert")
			return nil
		}
	}
	l.unknownKeys(es, "in "+where, id, v5TurnKeys)
	t := &Turn{Line: n.Line, Col: n.Column}
	ok := true
	bad := func(at *yaml.Node, format string, args ...any) {
		ok = false
		fail(at, format, args...)
	}
	get := func(key string) *yaml.Node {
		if e := f.get(key); e != nil && !isNull(e.v) {
			return render(e.v)
		}
		return nil
	}
	text := ""
	switch in := get("input"); {
	case in == nil:
		bad(n, "%s has no %q", where, "input")
	case in.Kind == yaml.ScalarNode && strings.TrimSpace(in.Value) == "",
		in.Kind == yaml.SequenceNode && len(in.Content) == 0:
		bad(in, "%s has an empty %q", where, "input")
	case in.Kind == yaml.ScalarNode:
		text = in.Value
	default:
		b, err := toJSON(in)
		if err != nil {
			bad(in, "%s input: %v", where, err)
		}
		text = string(b)
	}
	t.Input = Message{Role: RoleUser, Content: Content{Kind: ContentText, Text: l.str(text)}}
	p := &caseParser{l: l, c: &Case{Suite: l.s, ID: id, Line: n.Line, Col: n.Column}}
	if e := f.get("expected_output"); e != nil && !isNull(e.v) {
		p.expected(&kv{key: "expected_output", kn: e.kn, v: get("expected_output")})
		p.reference(nil)
	}
	ok = ok && !p.failed
	t.Expected, t.ReferenceAnswer, t.HasReference = p.c.Expected, p.c.ReferenceAnswer, p.c.HasReference
	if a := f.get("assert"); a != nil && !isNull(a.v) {
		list := get("assert")
		if list.Kind != yaml.SequenceNode {
			fail(list, "%s %q must be a list of assertions, got %s", where, "assert", kindName(list))
			return nil
		}
		evals, items := l.v5TurnAssertions(list, a.kn, id, bad)
		el := l.evaluatorSource(nil, &kv{key: "evaluators", kn: a.kn, v: seqNode(a.kn, evals...)}, nil, id)
		ok = l.addListDiags(el, id, notLoaded) && ok
		written := map[v5Pos]v5Written{}
		v5WrittenTypes(items, written)
		setRecordTypes(el.specs, written)
		t.Evaluators = el.specs
	}
	if !ok {
		return nil
	}
	return t
}

// v5TurnAssertions converts a turn's assert list as 5.x grades a turn (orchestrator.ts,
// buildTurnAssertions): its plain strings make one llm-rubric checklist named
// turn-llm-rubric, first and of weight 1, then the other entries in order. items are the
// entries in that order, for their written type names.
func (l *loader) v5TurnAssertions(list, at *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) (evals, items []*yaml.Node) {
	var strs, rest []*yaml.Node
	for _, it := range list.Content {
		if isString(deref(it)) {
			strs = append(strs, it)
		} else {
			rest = append(rest, it)
		}
	}
	for _, g := range l.v5Assertions(strs, at, id, fail) {
		g = replaceKey(g, "name", "", strNode(g, "turn-llm-rubric"))
		evals = append(evals, replaceKey(g, "weight", "", intNode(g, 1)))
	}
	return append(evals, l.v5Assertions(rest, at, id, fail)...), append(strs, rest...)
}
