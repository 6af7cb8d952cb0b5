package agentv5

import (
	"github.com/agentv/action/suite"
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
func (l *reader) v5Conversation(n *yaml.Node, f suite.EntryList, id string, render func(*yaml.Node) *yaml.Node, fail func(*yaml.Node, string, ...any)) (conv *suite.Conversation, ok bool) {
	turn := func(item *yaml.Node, num int) *suite.Turn { return l.v5Turn(item, num, id, render, fail) }
	conv, ok = suite.ReadConversation(n, f, false, turn, fail)
	if conv != nil {
		conv.EntryType = v5ConversationEntryType
		conv.Unweighted = true // its turn entries have no weight (orchestrator.ts:3478-3484, :3594-3601)
	}
	return conv, ok
}

// v5ConversationEntryType is the type 5.x's results give a conversation's turn entries and
// its transcript's (orchestrator.ts:3536-3538, :3590-3592 at v5.3.1-next.1).
const v5ConversationEntryType = "llm-rubric"

// v5Turn reads one turn: its input (a string; other content as its JSON text), its
// expected_output and its assert list.
func (l *reader) v5Turn(item *yaml.Node, num int, id string, render func(*yaml.Node) *yaml.Node, fail func(*yaml.Node, string, ...any)) *suite.Turn {
	n, where, es := l.TurnEntries(item, num, id, fail)
	if n == nil {
		return nil
	}
	f := suite.EntryList(es)
	for _, e := range es {
		if e.Key == "assertions" {
			fail(e.KeyNode, "%s: a turn's %q is not accepted in AgentV 5.x: write %q", where, e.Key, "assert")
			return nil
		}
	}
	l.UnknownKeys(es, "in "+where, id, v5TurnKeys)
	t := &suite.Turn{Line: n.Line, Col: n.Column}
	ok := true
	bad := func(at *yaml.Node, format string, args ...any) {
		ok = false
		fail(at, format, args...)
	}
	get := func(key string) *yaml.Node {
		if e := f.Get(key); e != nil && !suite.IsNull(e.Value) {
			return render(e.Value)
		}
		return nil
	}
	ok = l.TurnMessages(t, n, f, id, where, get, bad) && ok
	if a := f.Get("assert"); a != nil && !suite.IsNull(a.Value) {
		list := get("assert")
		if list.Kind != yaml.SequenceNode {
			fail(list, "%s %q must be a list of assertions, got %s", where, "assert", suite.KindName(list))
			return nil
		}
		evals, items := l.v5TurnAssertions(list, a.KeyNode, id, bad)
		el := l.EvaluatorSource(nil, &suite.Entry{Key: "evaluators", KeyNode: a.KeyNode, Value: suite.SeqNode(a.KeyNode, evals...)}, nil, id)
		ok = l.AddListDiags(el, id, suite.NotLoaded) && ok
		written := map[v5Pos]v5Written{}
		v5WrittenTypes(items, written)
		setRecordTypes(el.Specs, written)
		t.Evaluators = el.Specs
	}
	if !ok {
		return nil
	}
	return t
}

// v5TurnAssertions converts a turn's assert list as 5.x grades a turn (orchestrator.ts,
// buildTurnAssertions): its plain strings make one llm-rubric checklist named
// turn-llm-rubric, first and of weight 1, then the other entries in order. items are the
// MapEntries in that order, for their written type names.
func (l *reader) v5TurnAssertions(list, at *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) (evals, items []*yaml.Node) {
	var strs, rest []*yaml.Node
	for _, it := range list.Content {
		if suite.IsString(suite.Deref(it)) {
			strs = append(strs, it)
		} else {
			rest = append(rest, it)
		}
	}
	for _, g := range l.v5Assertions(strs, at, id, fail) {
		g = suite.ReplaceKey(g, "name", "", suite.StrNode(g, "turn-llm-rubric"))
		evals = append(evals, suite.ReplaceKey(g, "weight", "", suite.IntNode(g, 1)))
	}
	return append(evals, l.v5Assertions(rest, at, id, fail)...), append(strs, rest...)
}
