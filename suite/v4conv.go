package suite

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Keys of an AgentV 4.x conversation test and of its turns.
var (
	v4ConversationKeys = []string{"mode", "turns", "aggregation", "on_turn_failure", "window_size"}
	v4TurnKeys         = []string{"input", "expected_output", "assertions"}
	v4Aggregations     = []string{AggregateMean, AggregateMin, AggregateMax}
	v4TurnFailures     = []string{OnTurnFailureContinue, OnTurnFailureStop}
)

// v4Conversation reads a test's conversation keys: nil when the test is not a conversation
// (`mode` absent) or when something is wrong (reported through fail, or as diagnostics when
// ok is false). sub applies the test's vars to a value.
func (l *loader) v4Conversation(n *yaml.Node, f kvs, id string, sub func(*kv) *yaml.Node, fail func(*yaml.Node, string, ...any)) (conv *Conversation, ok bool) {
	turn := func(item *yaml.Node, num int) *Turn { return l.v4Turn(item, num, id, sub, fail) }
	return conversation(n, f, true, turn, fail)
}

// conversation reads the conversation keys 4.x and 5.x files share: mode, aggregation,
// on_turn_failure, window_size and turns, each turn read by turn (nil when it is wrong and
// reported). wholeExpected refuses a test-level expected_output, as 4.x files do. nil when the
// test is not a conversation or when something is wrong (reported through fail).
func conversation(n *yaml.Node, f kvs, wholeExpected bool, turn func(item *yaml.Node, num int) *Turn, fail func(*yaml.Node, string, ...any)) (conv *Conversation, ok bool) {
	mode := f.get("mode")
	if mode == nil || isNull(mode.v) {
		// The other keys only make sense in a conversation: say so rather than ignore them.
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
	if e := f.get("expected_output"); wholeExpected && e != nil && !isNull(e.v) {
		fail(e.kn, "a conversation test takes %q per turn, not for the whole test", "expected_output")
		ok = false
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
		if t := turn(item, i+1); t != nil {
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

// v4Turn reads one turn: its input (a string; other content is sent as its JSON text, as
// AgentV 4.x does), its expected_output and its assertions.
func (l *loader) v4Turn(item *yaml.Node, num int, id string, sub func(*kv) *yaml.Node, fail func(*yaml.Node, string, ...any)) *Turn {
	n, where, es := l.turnEntries(item, num, id, fail)
	if n == nil {
		return nil
	}
	f := kvs(es)
	l.unknownKeys(es, "in "+where, id, v4TurnKeys)
	t := &Turn{Line: n.Line, Col: n.Column}
	ok := true
	bad := func(at *yaml.Node, format string, args ...any) {
		ok = false
		fail(at, format, args...)
	}
	ok = l.turnMessages(t, n, f, id, where, func(key string) *yaml.Node { return sub(f.get(key)) }, bad) && ok
	if a := f.get("assertions"); a != nil && !isNull(a.v) {
		if a.v.Kind != yaml.SequenceNode {
			fail(a.v, "%s %q must be a list of assertions, got %s", where, "assertions", kindName(a.v))
			return nil
		}
		list := seqNode(a.v, l.v4TurnAssertions(a.v, id, bad)...)
		el := l.evaluatorSource(nil, &kv{key: "assertions", kn: a.kn, v: list}, nil, id)
		ok = l.addListDiags(el, id, notLoaded) && ok
		t.Evaluators = el.specs
	}
	if !ok {
		return nil
	}
	return t
}

// v4TurnAssertions converts a turn's assertions as AgentV 4.x grades a turn: its plain-string
// criteria make one rubric grader named turn-rubrics, first and of weight 1, then the other
// assertions in order.
func (l *loader) v4TurnAssertions(list *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) []*yaml.Node {
	strs, rest := seqNode(list), seqNode(list)
	for _, item := range list.Content {
		if isString(item) {
			strs.Content = append(strs.Content, item)
		} else {
			rest.Content = append(rest.Content, item)
		}
	}
	var out []*yaml.Node
	for _, g := range l.v4Assertions(strs, id, fail) {
		g = replaceKey(g, "name", "", strNode(g, "turn-rubrics"))
		out = append(out, replaceKey(g, "weight", "", intNode(g, 1)))
	}
	return append(out, l.v4Assertions(rest, id, fail)...)
}

// turnEntries opens turn num: its mapping, its name in messages ("turn 2") and its entries,
// duplicate keys reported. n is nil when the turn is not a mapping (reported through fail).
func (l *loader) turnEntries(item *yaml.Node, num int, id string, fail func(*yaml.Node, string, ...any)) (n *yaml.Node, where string, es []kv) {
	n = deref(item)
	where = fmt.Sprintf("turn %d", num)
	if n == nil || n.Kind != yaml.MappingNode {
		fail(cmp.Or(n, item), "%s must be a mapping with an input, got %s", where, kindName(n))
		return nil, where, nil
	}
	es = entries(n)
	l.dupes(es, id)
	return n, where, es
}

// turnMessages reads a turn's input (a string; other content is sent as its JSON text, as
// AgentV 4.x and 5.x do) and its expected_output (read as a test's is) into t. value gives a
// key's value in f with the test's vars applied, nil when it is absent or null. false when the
// expected_output is wrong; a wrong input is reported through bad.
func (l *loader) turnMessages(t *Turn, n *yaml.Node, f kvs, id, where string, value func(key string) *yaml.Node, bad func(*yaml.Node, string, ...any)) bool {
	text := ""
	switch in := value("input"); {
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
	if e := value("expected_output"); e != nil {
		p.expected(&kv{key: "expected_output", kn: f.get("expected_output").kn, v: e})
		p.reference(nil)
	}
	t.Expected, t.ReferenceAnswer, t.HasReference = p.c.Expected, p.c.ReferenceAnswer, p.c.HasReference
	return !p.failed
}

// notLoaded is the note an error adds about the test it keeps from loading.
func notLoaded(id string) string {
	if id == "" {
		return " (case not loaded)"
	}
	return fmt.Sprintf(" (case %q not loaded)", id)
}
