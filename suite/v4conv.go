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
func (l *Reader) v4Conversation(n *yaml.Node, f EntryList, id string, sub func(*Entry) *yaml.Node, fail func(*yaml.Node, string, ...any)) (conv *Conversation, ok bool) {
	turn := func(item *yaml.Node, num int) *Turn { return l.v4Turn(item, num, id, sub, fail) }
	return ReadConversation(n, f, true, turn, fail)
}

// ReadConversation reads the conversation keys 4.x and 5.x files share: mode, aggregation,
// on_turn_failure, window_size and turns, each turn read by turn (nil when it is wrong and
// reported). wholeExpected refuses a test-level expected_output, as 4.x files do. nil when the
// test is not a conversation or when something is wrong (reported through fail).
func ReadConversation(n *yaml.Node, f EntryList, wholeExpected bool, turn func(item *yaml.Node, num int) *Turn, fail func(*yaml.Node, string, ...any)) (conv *Conversation, ok bool) {
	mode := f.Get("mode")
	if mode == nil || IsNull(mode.Value) {
		// The other keys only make sense in a conversation: say so rather than ignore them.
		for _, k := range v4ConversationKeys[1:] {
			if e := f.Get(k); e != nil {
				fail(e.KeyNode, "%q needs %q", k, "mode: conversation")
			}
		}
		return nil, true
	}
	if mode.Value.Kind != yaml.ScalarNode || mode.Value.Value != "conversation" {
		fail(mode.Value, "%q must be %q, got %s", "mode", "conversation", Describe(mode.Value))
		return nil, false
	}
	conv = &Conversation{Aggregation: AggregateMean, OnTurnFailure: OnTurnFailureContinue}
	ok = true
	oneOf := func(key string, allowed []string, dst *string) {
		e := f.Get(key)
		if e == nil || IsNull(e.Value) {
			return
		}
		if e.Value.Kind != yaml.ScalarNode || !slices.Contains(allowed, e.Value.Value) {
			fail(e.Value, "%q must be one of %s, got %s", key, strings.Join(allowed, ", "), Describe(e.Value))
			ok = false
			return
		}
		*dst = e.Value.Value
	}
	oneOf("aggregation", v4Aggregations, &conv.Aggregation)
	oneOf("on_turn_failure", v4TurnFailures, &conv.OnTurnFailure)
	if e := f.Get("window_size"); e != nil && !IsNull(e.Value) {
		w, isNum := Number(e.Value)
		if !isNum || Classify(e.Value) != ScalarInt || w < 1 || w > math.MaxInt32 {
			fail(e.Value, "%q must be a whole number of turns, at least 1, got %s", "window_size", Describe(e.Value))
			ok = false
		} else {
			conv.WindowSize = int(w)
		}
	}
	if e := f.Get("expected_output"); wholeExpected && e != nil && !IsNull(e.Value) {
		fail(e.KeyNode, "a conversation test takes %q per turn, not for the whole test", "expected_output")
		ok = false
	}
	turns := f.Get("turns")
	switch {
	case turns == nil || IsNull(turns.Value):
		fail(n, "%q needs a non-empty %q list", "mode: conversation", "turns")
		return nil, false
	case turns.Value.Kind != yaml.SequenceNode:
		fail(turns.Value, "%q must be a list of turns, each with an input, got %s", "turns", KindName(turns.Value))
		return nil, false
	case len(turns.Value.Content) == 0:
		fail(turns.Value, "%q needs at least one turn", "turns")
		return nil, false
	}
	for i, item := range turns.Value.Content {
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
func (l *Reader) v4Turn(item *yaml.Node, num int, id string, sub func(*Entry) *yaml.Node, fail func(*yaml.Node, string, ...any)) *Turn {
	n, where, es := l.TurnEntries(item, num, id, fail)
	if n == nil {
		return nil
	}
	f := EntryList(es)
	l.UnknownKeys(es, "in "+where, id, v4TurnKeys)
	t := &Turn{Line: n.Line, Col: n.Column}
	ok := true
	bad := func(at *yaml.Node, format string, args ...any) {
		ok = false
		fail(at, format, args...)
	}
	ok = l.TurnMessages(t, n, f, id, where, func(key string) *yaml.Node { return sub(f.Get(key)) }, bad) && ok
	if a := f.Get("assertions"); a != nil && !IsNull(a.Value) {
		if a.Value.Kind != yaml.SequenceNode {
			fail(a.Value, "%s %q must be a list of assertions, got %s", where, "assertions", KindName(a.Value))
			return nil
		}
		list := SeqNode(a.Value, l.v4TurnAssertions(a.Value, id, bad)...)
		el := l.EvaluatorSource(nil, &Entry{Key: "assertions", KeyNode: a.KeyNode, Value: list}, nil, id)
		ok = l.AddListDiags(el, id, NotLoaded) && ok
		t.Evaluators = el.Specs
	}
	if !ok {
		return nil
	}
	return t
}

// v4TurnAssertions converts a turn's assertions as AgentV 4.x grades a turn: its plain-string
// criteria make one rubric grader named turn-rubrics, first and of weight 1, then the other
// assertions in order.
func (l *Reader) v4TurnAssertions(list *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) []*yaml.Node {
	strs, rest := SeqNode(list), SeqNode(list)
	for _, item := range list.Content {
		if IsString(item) {
			strs.Content = append(strs.Content, item)
		} else {
			rest.Content = append(rest.Content, item)
		}
	}
	var out []*yaml.Node
	for _, g := range l.V4Assertions(strs, id, fail) {
		g = ReplaceKey(g, "name", "", StrNode(g, "turn-rubrics"))
		out = append(out, ReplaceKey(g, "weight", "", IntNode(g, 1)))
	}
	return append(out, l.V4Assertions(rest, id, fail)...)
}

// TurnEntries opens turn num: its mapping, its name in messages ("turn 2") and its entries,
// duplicate keys reported. n is nil when the turn is not a mapping (reported through fail).
func (l *Reader) TurnEntries(item *yaml.Node, num int, id string, fail func(*yaml.Node, string, ...any)) (n *yaml.Node, where string, es []Entry) {
	n = Deref(item)
	where = fmt.Sprintf("turn %d", num)
	if n == nil || n.Kind != yaml.MappingNode {
		fail(cmp.Or(n, item), "%s must be a mapping with an input, got %s", where, KindName(n))
		return nil, where, nil
	}
	es = MapEntries(n)
	l.Dupes(es, id)
	return n, where, es
}

// TurnMessages reads a turn's input (a string; other content is sent as its JSON text, as
// AgentV 4.x and 5.x do) and its expected_output (read as a test's is) into t. value gives a
// key's value in f with the test's vars applied, nil when it is absent or null. false when the
// expected_output is wrong; a wrong input is reported through bad.
func (l *Reader) TurnMessages(t *Turn, n *yaml.Node, f EntryList, id, where string, value func(key string) *yaml.Node, bad func(*yaml.Node, string, ...any)) bool {
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
		b, err := ToJSON(in)
		if err != nil {
			bad(in, "%s input: %v", where, err)
		}
		text = string(b)
	}
	t.Input = Message{Role: RoleUser, Content: Content{Kind: ContentText, Text: l.str(text)}}
	p := &CaseParser{l: l, c: &Case{Suite: l.Suite, ID: id, Line: n.Line, Col: n.Column}}
	if e := value("expected_output"); e != nil {
		p.expected(&Entry{Key: "expected_output", KeyNode: f.Get("expected_output").KeyNode, Value: e})
		p.reference(nil)
	}
	t.Expected, t.ReferenceAnswer, t.HasReference = p.c.Expected, p.c.ReferenceAnswer, p.c.HasReference
	return !p.failed
}

// NotLoaded is the note an error adds about the test it keeps from loading.
func NotLoaded(id string) string {
	if id == "" {
		return " (case not loaded)"
	}
	return fmt.Sprintf(" (case %q not loaded)", id)
}
