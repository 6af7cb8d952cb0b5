package evaluators

import (
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/agentv/action/suite"
)

// traceStep is one step of a case's trajectory as AgentV 5.x's trajectory graders see it
// (graders/trajectory.ts, eventToTrajectoryStep, over trace.ts buildTraceFromMessages): each
// message is a `message` step, each of its tool calls a `tool` step (a shell tool's call with
// a command a `command` step named by that command), a call's result a `span` step
// `tool_result`, and the last assistant message once more as `final_response`.
type traceStep struct {
	typ      string   // tool, command, message or span
	name     string   // the tool, the command, or the message's name (else the event type)
	spanName string   // the tool a command ran in; else name
	aliases  []string // the names a pattern may match
}

// traceSteps lists the case's trajectory steps in the order the trace records them: the input
// messages unless the answer repeats them or is a whole conversation, then the answer's
// messages (a plain answer is one assistant message), then the final response.
func traceSteps(r *caseRun) []traceStep {
	var out []suite.Message
	if r.in.Response != nil {
		out = r.in.Response.OutputMessages
	}
	if len(out) == 0 && r.in.Candidate != "" {
		out = []suite.Message{{Role: "assistant", Content: suite.Content{Kind: suite.ContentText, Text: r.in.Candidate}}}
	}
	msgs := out
	switch in := r.in.Case.Input; {
	case len(out) == 0:
		msgs = in
	case transcriptLike(out):
	case len(in) == 1 && in[0].Role == out[0].Role && reflect.DeepEqual(in[0].Content, out[0].Content):
	default:
		msgs = append(append([]suite.Message{}, in...), out...)
	}
	var steps []traceStep
	final := -1
	for i, m := range msgs {
		name := cmp.Or(m.Name, "message")
		steps = append(steps, traceStep{typ: "message", name: name, spanName: name, aliases: []string{name, "message"}})
		steps = append(steps, toolCallSteps(m.ToolCalls)...)
		if m.Role == "assistant" {
			final = i
		}
	}
	if final >= 0 {
		name := cmp.Or(msgs[final].Name, "final_response")
		steps = append(steps, traceStep{typ: "message", name: name, spanName: name, aliases: []string{name, "message"}})
	}
	return steps
}

// transcriptLike reports whether an answer holds the user or system turns too.
func transcriptLike(msgs []suite.Message) bool {
	for _, m := range msgs {
		if m.Role == "user" || m.Role == "system" {
			return true
		}
	}
	return false
}

// toolCallSteps are the steps of a message's tool calls: the call, and its result when the
// call carries an output.
func toolCallSteps(raw json.RawMessage) []traceStep {
	var items []struct {
		Tool      string          `json:"tool"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		Args      json.RawMessage `json:"args"`
		Arguments json.RawMessage `json:"arguments"`
		Output    json.RawMessage `json:"output"`
	}
	if isNull(raw) || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var steps []traceStep
	for _, it := range items {
		tool := cmp.Or(it.Tool, it.Name)
		in := it.Input
		for _, alt := range []json.RawMessage{it.Args, it.Arguments} {
			if isNull(in) {
				in = alt
			}
		}
		args, _ := structuredArgs(in)
		st := traceStep{typ: "tool", name: tool, spanName: tool, aliases: []string{tool}}
		if command := shellCommand(args); commandTools[strings.ToLower(tool)] && command != "" {
			st = traceStep{typ: "command", name: command, spanName: tool, aliases: []string{command, tool}}
			if exe := strings.Fields(command); len(exe) > 0 && exe[0] != command && exe[0] != tool {
				st.aliases = append(st.aliases, exe[0])
			}
		}
		steps = append(steps, st)
		if it.Output != nil {
			steps = append(steps, traceStep{typ: "span", name: "tool_result", spanName: "tool_result", aliases: []string{"tool_result", "span"}})
		}
	}
	return steps
}

// matchStep reports whether a step is of one of types (any when empty) and, with a pattern,
// has a name the pattern matches (a case-insensitive glob).
func matchStep(s traceStep, types []string, pattern string) bool {
	if len(types) > 0 && !slices.Contains(types, s.typ) {
		return false
	}
	if pattern == "" {
		return true
	}
	for _, a := range s.aliases {
		if globMatch(pattern, a) {
			return true
		}
	}
	return false
}
