package suite

import (
	"strconv"
	"strings"
	"testing"
)

// TestV4ConversationLoad checks what a conversation test loads into: its turns in order, the
// turn inputs (non-string content as JSON text), per-turn expected output and assertions named
// as a test's are, the defaults (mean, continue) and the vars applied to turn inputs.
func TestV4ConversationLoad(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, `tests:
  - id: chat
    mode: conversation
    aggregation: min
    on_turn_failure: stop
    window_size: 2
    vars: {name: Ada}
    input:
      - role: system
        content: Be brief.
    assertions:
      - type: cost
        budget: 1
    turns:
      - input: Hello {{name}}
        expected_output: Hi Ada
        assertions:
          - type: latency
            threshold: 10
          - Greets the user
          - Is polite
      - input:
          - type: text
            value: And now?
  - id: defaults
    mode: conversation
    input: start
    turns:
      - input: one
`)
	if len(s.Cases) != 2 {
		t.Fatalf("got %d cases:\n%s", len(s.Cases), formatDiags(s.Diagnostics))
	}
	c := s.Cases[0]
	conv := c.Conversation
	if conv == nil {
		t.Fatalf("case %q has no conversation", c.ID)
	}
	if conv.Aggregation != AggregateMin || conv.OnTurnFailure != OnTurnFailureStop || conv.WindowSize != 2 {
		t.Errorf("aggregation %q, on_turn_failure %q, window %d; want min, stop, 2", conv.Aggregation, conv.OnTurnFailure, conv.WindowSize)
	}
	if len(conv.Turns) != 2 {
		t.Fatalf("got %d turns, want 2", len(conv.Turns))
	}
	t1, t2 := conv.Turns[0], conv.Turns[1]
	if got := t1.Input.Content.Text; t1.Input.Role != RoleUser || got != "Hello Ada" {
		t.Errorf("turn 1 input %s %q, want user %q", t1.Input.Role, got, "Hello Ada")
	}
	if got := t2.Input.Content.Text; got != `[{"type":"text","value":"And now?"}]` {
		t.Errorf("turn 2 input %q, want the content's JSON", got)
	}
	if !t1.HasReference || t1.ReferenceAnswer != "Hi Ada" || len(t1.Expected) != 1 {
		t.Errorf("turn 1 reference %q (%v), %d expected messages", t1.ReferenceAnswer, t1.HasReference, len(t1.Expected))
	}
	var names []string
	for _, e := range t1.Evaluators {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "turn-rubrics latency" {
		t.Errorf("turn 1 evaluators %q, want %q", got, "turn-rubrics latency")
	}
	// As AgentV 4.x grades a turn, the criteria strings make one grader of weight 1, first.
	if w := t1.Evaluators[0].Weight; w != 1 {
		t.Errorf("turn-rubrics weight %v, want 1", w)
	}
	if len(t2.Evaluators) != 0 || t2.HasReference {
		t.Errorf("turn 2 has %d evaluators, reference %v; want none", len(t2.Evaluators), t2.HasReference)
	}
	if len(c.Evaluators) != 1 || c.Evaluators[0].Name != "cost" {
		t.Errorf("test-level evaluators %v, want cost", c.Evaluators)
	}
	if len(c.Input) != 1 || c.Input[0].Role != RoleSystem {
		t.Errorf("input %v, want the system message", c.Input)
	}
	d := s.Cases[1].Conversation
	if d == nil || d.Aggregation != AggregateMean || d.OnTurnFailure != OnTurnFailureContinue || d.WindowSize != 0 {
		t.Errorf("defaults: %+v, want mean, continue, no window", d)
	}
	if s.Cases[1].Conversation != nil && len(s.Cases[1].Evaluators) != 0 {
		t.Errorf("defaults: test-level evaluators %v, want none", s.Cases[1].Evaluators)
	}
}

// TestV4ConversationErrors checks that each malformed conversation test is reported at the
// offending line and column and is not loaded, while the file's other tests still load.
func TestV4ConversationErrors(t *testing.T) {
	t.Parallel()
	head := "tests:\n  - id: ok\n    input: hi\n    criteria: fine\n  - id: bad\n    input: hi\n"
	tests := []struct {
		name, body string
		want       string // "line:col: message fragment"
	}{
		{"unknown mode", "    mode: chat\n    turns:\n      - input: a\n", `7:11: "mode" must be "conversation", got "chat"`},
		{"unknown aggregation", "    mode: conversation\n    aggregation: median\n    turns:\n      - input: a\n",
			`8:18: "aggregation" must be one of mean, min, max, got "median"`},
		{"unknown on_turn_failure", "    mode: conversation\n    on_turn_failure: abort\n    turns:\n      - input: a\n",
			`8:22: "on_turn_failure" must be one of continue, stop, got "abort"`},
		{"window_size not a count", "    mode: conversation\n    window_size: 1.5\n    turns:\n      - input: a\n",
			`8:18: "window_size" must be a whole number of turns, at least 1, got "1.5"`},
		{"window_size zero", "    mode: conversation\n    window_size: 0\n    turns:\n      - input: a\n",
			`8:18: "window_size" must be a whole number of turns`},
		{"turns not a list", "    mode: conversation\n    turns: {input: a}\n", `8:12: "turns" must be a list of turns, each with an input, got a mapping`},
		{"no turns", "    mode: conversation\n", `5:5: "mode: conversation" needs a non-empty "turns" list`},
		{"empty turns", "    mode: conversation\n    turns: []\n", `8:12: "turns" needs at least one turn`},
		{"turn without input", "    mode: conversation\n    turns:\n      - input: a\n      - assertions: []\n",
			`10:9: turn 2 has no "input"`},
		{"turn with blank input", "    mode: conversation\n    turns:\n      - input: \"  \"\n", `9:16: turn 1 has an empty "input"`},
		{"turn not a mapping", "    mode: conversation\n    turns:\n      - just text\n", `9:9: turn 1 must be a mapping with an input, got a string`},
		{"turn assertions not a list", "    mode: conversation\n    turns:\n      - input: a\n        assertions: {type: contains}\n",
			`10:21: turn 1 "assertions" must be a list of assertions, got a mapping`},
		{"turn assertion of unknown type", "    mode: conversation\n    turns:\n      - input: a\n        assertions:\n          - type: nosuch\n",
			`11:19: unknown evaluator type "nosuch"`},
		{"turns without mode", "    criteria: x\n    turns:\n      - input: a\n", `8:5: "turns" needs "mode: conversation"`},
		{"aggregation without mode", "    criteria: x\n    aggregation: min\n", `8:5: "aggregation" needs "mode: conversation"`},
		{"top-level expected_output", "    mode: conversation\n    expected_output: x\n    turns:\n      - input: a\n",
			`8:5: a conversation test takes "expected_output" per turn`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadYAMLString(t, head+tt.body)
			pos, msg, _ := strings.Cut(tt.want, ": ")
			var found bool
			for _, d := range s.Diagnostics {
				if d.Severity == SeverityError && strings.Contains(d.Message, msg) && pos == strconv.Itoa(d.Line)+":"+strconv.Itoa(d.Col) &&
					d.File == "eval.yaml" && strings.Contains(d.Message, `(case "bad" not loaded)`) {
					found = true
				}
			}
			if !found {
				t.Errorf("no error %q at %s in:\n%s", msg, pos, formatDiags(s.Diagnostics))
			}
			if len(s.Cases) != 1 || s.Cases[0].ID != "ok" {
				t.Errorf("loaded %d cases, want only %q", len(s.Cases), "ok")
			}
		})
	}
}

// TestV4TurnUnknownKey checks that an unknown key in a turn is a warning naming the turn and
// suggesting the key meant, and the test still loads.
func TestV4TurnUnknownKey(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "tests:\n  - id: a\n    mode: conversation\n    input: hi\n    turns:\n      - input: x\n        assertion: []\n")
	c := onlyCase(t, s)
	if c.Conversation == nil || len(c.Conversation.Turns) != 1 {
		t.Fatalf("conversation %+v, want one turn", c.Conversation)
	}
	d := requireDiag(t, s.Diagnostics, SeverityWarning, `unknown key "assertion" in turn 1`, `did you mean "assertions"?`)
	if d.Line != 7 || d.Col != 9 {
		t.Errorf("warning at %d:%d, want 7:9", d.Line, d.Col)
	}
}
