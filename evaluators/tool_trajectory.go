package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/agentv/action/suite"
)

// Trajectory modes are AgentV's any_order, in_order, exact, and 4.x's subset and superset.
// args_match modes: exact (the same keys and values), superset (the call has every expected key
// with its value), subset (every key of the call is expected with its value), ignore, or a list
// of the fields to compare ("fields").

// argsMode is an args_match setting: a mode, or the fields to compare; zero is unset.
type argsMode struct {
	mode   string
	fields [][]pathStep
}

type expectedCall struct {
	Tool string `json:"tool"`
	// Args is "any" or an object the call's input is compared with under its args_match.
	Args          json.RawMessage `json:"args"`
	MaxDurationMS *float64        `json:"max_duration_ms"`
	MaxDurationMs *float64        `json:"maxDurationMs"`
	ArgsMatch     json.RawMessage `json:"args_match"`
	ArgsMatchCml  json.RawMessage `json:"argsMatch"`
	args          map[string]any  // nil: any arguments
	argsMatch     argsMode
}

type trajectoryConfig struct {
	mode      string
	minimums  map[string]int
	expected  []expectedCall
	argsMatch argsMode
}

func init() { register("tool_trajectory", nil, nil, parseTrajectory, toolTrajectory) }

// parseArgsMatch reads an args_match value at path: a mode name or a list of field paths.
func parseArgsMatch(raw json.RawMessage, path string) (argsMode, error) {
	if isNull(raw) {
		return argsMode{}, nil
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		switch name {
		case "exact", "superset", "subset", "ignore":
			return argsMode{mode: name}, nil
		}
		return argsMode{}, settingErr(path, "unknown args_match %q (want exact, superset, subset, ignore or a list of fields)", name)
	}
	var fields []string
	if err := decodeAt(raw, &fields, path); err != nil {
		return argsMode{}, err
	}
	var m argsMode
	for i, f := range fields {
		if f == "" {
			continue
		}
		var steps []pathStep
		for _, part := range strings.Split(f, ".") {
			if part == "" {
				return argsMode{}, settingErr(fmt.Sprintf("%s[%d]", path, i), "field %q has an empty segment", f)
			}
			steps = append(steps, pathStep{key: part})
		}
		m.fields = append(m.fields, steps)
	}
	if m.fields == nil {
		return argsMode{}, nil
	}
	m.mode = "fields"
	return m, nil
}

func parseTrajectory(spec *suite.EvaluatorSpec) (*trajectoryConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &trajectoryConfig{}
	if _, err := s.decode(&cfg.mode, "mode"); err != nil {
		return nil, err
	}
	if raw, k := s.raw("args_match", "argsMatch"); raw != nil {
		if cfg.argsMatch, err = parseArgsMatch(raw, k); err != nil {
			return nil, err
		}
	}
	switch cfg.mode {
	case "any_order":
		if ok, err := s.decode(&cfg.minimums, "minimums"); err != nil {
			return nil, err
		} else if !ok {
			return nil, errors.New("tool_trajectory mode any_order needs `minimums: {tool: count}`")
		}
		for _, tool := range slices.Sorted(maps.Keys(cfg.minimums)) {
			if cfg.minimums[tool] < 0 {
				return nil, settingErr("minimums."+tool, "must be >= 0")
			}
		}
		return cfg, nil
	case "in_order", "exact", "subset", "superset":
		var expected []json.RawMessage
		if ok, err := s.decode(&expected, "expected"); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("tool_trajectory mode %s needs `expected: [{tool, args?}]`", cfg.mode)
		}
		cfg.expected = make([]expectedCall, len(expected))
		for i, raw := range expected {
			e, at := &cfg.expected[i], fmt.Sprintf("expected[%d]", i)
			if err := decodeAt(raw, e, at); err != nil {
				return nil, err
			} else if e.Tool == "" {
				return nil, settingErr(at+".tool", "is required")
			}
			if !isNull(e.Args) && strings.TrimSpace(string(e.Args)) != `"any"` && json.Unmarshal(e.Args, &e.args) != nil {
				return nil, settingErr(at+".args", "must be \"any\" or an object")
			}
			if e.MaxDurationMS == nil {
				e.MaxDurationMS = e.MaxDurationMs
			}
			if d := e.MaxDurationMS; d != nil && *d < 0 {
				return nil, settingErr(at+".max_duration_ms", "must be a number >= 0")
			}
			am, k := e.ArgsMatch, "args_match"
			if isNull(am) {
				am, k = e.ArgsMatchCml, "argsMatch"
			}
			if e.argsMatch, err = parseArgsMatch(am, at+"."+k); err != nil {
				return nil, err
			}
		}
		return cfg, nil
	case "":
		return nil, errors.New("tool_trajectory needs `mode` (any_order, in_order, exact, subset or superset)")
	}
	return nil, settingErr("mode", "unknown mode %q (want any_order, in_order, exact, subset or superset)", cfg.mode)
}

// toolCall is one call the target made, from its output messages' tool_calls.
type toolCall struct {
	name       string
	input      any
	output     json.RawMessage // what the tool returned, as the target reported it
	durationMS *float64
}

func toolCalls(r *caseRun) []toolCall {
	if r.in.Response == nil {
		return nil
	}
	var calls []toolCall
	for _, m := range r.in.Response.OutputMessages {
		if isNull(m.ToolCalls) {
			continue
		}
		var items []struct {
			Tool       string          `json:"tool"`
			Name       string          `json:"name"`
			Input      json.RawMessage `json:"input"`
			Args       json.RawMessage `json:"args"`
			Arguments  json.RawMessage `json:"arguments"`
			Output     json.RawMessage `json:"output"`
			DurationMS *float64        `json:"duration_ms"`
		}
		if json.Unmarshal(m.ToolCalls, &items) != nil {
			continue
		}
		for _, it := range items {
			c := toolCall{name: cmp.Or(it.Tool, it.Name), durationMS: it.DurationMS, output: it.Output}
			in := it.Input
			if isNull(in) {
				in = it.Args
			}
			if isNull(in) {
				in = it.Arguments
			}
			_ = json.Unmarshal(in, &c.input)
			// OpenAI-style arguments are a JSON string holding the object.
			if s, ok := c.input.(string); ok {
				var obj any
				if json.Unmarshal([]byte(s), &obj) == nil {
					c.input = obj
				}
			}
			calls = append(calls, c)
		}
	}
	return calls
}

// toolTrajectory checks which tools the target called, and in what order, as AgentV 4.42.4
// does; AgentV 2.5 files keep 2.5's rules where they differ (no trace scores 0, arguments
// match as a superset by default).
func toolTrajectory(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *trajectoryConfig) verdict {
	calls := toolCalls(r)
	if !r.rules.TraceOptional && len(calls) == 0 && r.in.Trace == nil {
		return assertion(false, "", "No trace available for evaluation")
	}
	t := &trajectory{cfg: cfg, calls: calls, defaultArgs: argsMode{mode: "exact"}}
	if !r.rules.ExactToolArgs {
		t.defaultArgs = argsMode{mode: "superset"}
	}
	switch cfg.mode {
	case "any_order":
		t.anyOrder(r)
	case "superset":
		t.superset()
	case "subset":
		t.subset()
	default:
		t.sequence()
	}
	return t.verdict(t.v.score)
}

// trajectory is one tool-trajectory evaluation under way.
type trajectory struct {
	checklist
	cfg         *trajectoryConfig
	calls       []toolCall
	defaultArgs argsMode
}

// matches tells whether call c satisfies expected item e: the same tool, and arguments that
// match under the item's args_match, else the grader's, else the default.
func (t *trajectory) matches(e *expectedCall, c *toolCall) bool {
	if c.name != e.Tool {
		return false
	}
	mode := e.argsMatch
	if mode.mode == "" {
		mode = t.cfg.argsMatch
	}
	if mode.mode == "" {
		mode = t.defaultArgs
	}
	return argsMatch(e.args, c.input, mode)
}

func (t *trajectory) anyOrder(r *caseRun) {
	counts := map[string]int{}
	for _, c := range t.calls {
		counts[c.name]++
	}
	if len(t.calls) == 0 && r.in.Trace != nil {
		maps.Copy(counts, r.in.Trace.ToolCallsByName)
	}
	// The settings map does not keep the order written: tools are checked sorted by name.
	names := slices.Sorted(maps.Keys(t.cfg.minimums))
	if len(names) == 0 {
		t.v.score = 1
		t.check(true, "No tool requirements specified")
		return
	}
	ok := 0
	for _, name := range names {
		minimum, got := t.cfg.minimums[name], counts[name]
		if got >= minimum {
			ok++
		}
		t.check(got >= minimum, "%s: called %d times (required >=%d)", name, got, minimum)
	}
	t.v.score = float64(ok) / float64(len(names))
}

// sequence scores in_order and exact: (calls matched + latency checks passed) / (expected
// calls + latency checks that could be made). An item's max_duration_ms is a latency check
// unless its call matched without a duration.
func (t *trajectory) sequence() {
	exp := t.cfg.expected
	if len(exp) == 0 {
		t.v.score = 1
		t.check(true, "No tool sequence specified")
		return
	}
	hits, total := 0, len(exp)
	for i := range exp {
		if exp[i].MaxDurationMS != nil {
			total++
		}
	}
	latency := func(e *expectedCall, c *toolCall) {
		switch {
		case e.MaxDurationMS == nil:
		case c.durationMS == nil:
			total-- // no timing: the check is skipped
		case *c.durationMS <= *e.MaxDurationMS:
			hits++
			t.check(true, "%s completed in %sms (max: %sms)", e.Tool, jsNumber(*c.durationMS), jsNumber(*e.MaxDurationMS))
		default:
			t.check(false, "%s took %sms (max: %sms)", e.Tool, jsNumber(*c.durationMS), jsNumber(*e.MaxDurationMS))
		}
	}
	if t.cfg.mode == "exact" {
		if len(t.calls) != len(exp) {
			t.check(false, "Expected %d tool calls, got %d", len(exp), len(t.calls))
		}
		for i := range exp {
			e := &exp[i]
			switch {
			case i >= len(t.calls):
				t.check(false, "Position %d: expected %s, got nothing", i, e.Tool)
			case t.calls[i].name != e.Tool:
				t.check(false, "Position %d: expected %s, got %s", i, e.Tool, t.calls[i].name)
			case !t.matches(e, &t.calls[i]):
				t.check(false, "Position %d: %s args mismatch", i, e.Tool)
			default:
				hits++
				t.check(true, "Position %d: %s", i, e.Tool)
				latency(e, &t.calls[i])
			}
		}
	} else {
		// The cursor moves past every call it looks at: the first call of the expected
		// tool is the item's match or its miss, and an item never found uses up the rest.
		cursor := 0
		for i := range exp {
			e := &exp[i]
			found := false
			for ; cursor < len(t.calls); cursor++ {
				c := &t.calls[cursor]
				if c.name != e.Tool {
					continue
				}
				found = true
				if t.matches(e, c) {
					hits++
					t.check(true, "Found %s at position %d", e.Tool, cursor)
					latency(e, c)
				} else {
					t.check(false, "Expected %s at position %d: tool found at %d but args mismatch", e.Tool, i, cursor)
				}
				cursor++
				break
			}
			if !found {
				t.check(false, "Expected %s at position %d, not found in remaining trace", e.Tool, i)
			}
		}
	}
	t.v.score = 1
	if total > 0 {
		t.v.score = float64(hits) / float64(total)
	}
}

// superset: every expected item must match a call of its own (each call matches once);
// other calls are fine.
func (t *trajectory) superset() {
	exp := t.cfg.expected
	if len(exp) == 0 {
		t.v.score = 1
		t.check(true, "No expected tools specified")
		return
	}
	used := make([]bool, len(t.calls))
	hits := 0
	for i := range exp {
		e := &exp[i]
		j := -1
		for k := range t.calls {
			if !used[k] && t.matches(e, &t.calls[k]) {
				j = k
				break
			}
		}
		if j < 0 {
			t.check(false, "Expected %s not found in actual trajectory", e.Tool)
			continue
		}
		used[j] = true
		hits++
		t.check(true, "Found %s at position %d", e.Tool, j)
	}
	t.v.score = float64(hits) / float64(len(exp))
}

// subset: every call must match some expected item (items may match many calls).
func (t *trajectory) subset() {
	exp := t.cfg.expected
	switch {
	case len(exp) == 0 && len(t.calls) == 0:
		t.v.score = 1
		t.check(true, "No tool calls and no expected tools")
		return
	case len(exp) == 0:
		t.check(false, "%d unexpected tool call(s) with empty allowed list", len(t.calls))
		return
	case len(t.calls) == 0:
		t.v.score = 1
		t.check(true, "No actual tool calls (trivially a subset)")
		return
	}
	hits := 0
	for i := range t.calls {
		c := &t.calls[i]
		allowed := slices.ContainsFunc(exp, func(e expectedCall) bool { return t.matches(&e, c) })
		hits += int(b2f(allowed))
		t.check(allowed, "Position %d: %s is %sin allowed set", i, c.name, map[bool]string{false: "not "}[allowed])
	}
	t.v.score = float64(hits) / float64(len(t.calls))
}

// argsMatch compares a call's input with an item's expected arguments (nil: any) under mode.
// A call without arguments matches only when nothing is asked of them.
func argsMatch(want map[string]any, input any, mode argsMode) bool {
	if want == nil || mode.mode == "ignore" {
		return true
	}
	if input == nil {
		return false
	}
	got, isObject := input.(map[string]any)
	switch mode.mode {
	case "fields":
		for _, f := range mode.fields {
			wv, ok := lookupPath(want, f)
			if !ok {
				continue // a field the item does not give is not compared
			}
			gv, ok := lookupPath(input, f)
			if !ok || !reflect.DeepEqual(wv, gv) {
				return false
			}
		}
		return true
	case "superset":
		return within(want, got)
	case "subset":
		return within(got, want)
	}
	return isObject && reflect.DeepEqual(want, got)
}

// within reports whether every key of a is in b with the same value.
func within(a, b map[string]any) bool {
	for k, av := range a {
		if bv, ok := b[k]; !ok || !reflect.DeepEqual(av, bv) {
			return false
		}
	}
	return true
}
