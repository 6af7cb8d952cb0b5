package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentv/action/suite"
)

// AgentV 5.x's promptfoo-style trajectory assertions (graders/trajectory.ts) check the tools
// the target called: trajectory:tool-used (which tools, how often), trajectory:tool-sequence
// (in what order) and trajectory:tool-args-match (with what arguments). Each scores 1 or 0.
// A `not-` form, or `negate: true`, inverts the check itself (5.x's `inverse`,
// loaders/grader-parser.ts:616-622, 695), which is not always the opposite score: a list of
// forbidden tools fails when any of them was used.
func init() {
	for _, kind := range []struct {
		name  string
		parse func(json.RawMessage) (trajectoryCheck, error)
	}{
		{"trajectory:tool-used", parseToolUsed},
		{"trajectory:tool-sequence", parseToolSequence},
		{"trajectory:tool-args-match", parseToolArgsMatch},
	} {
		registerTrajectory(kind.name, false, kind.parse)
		registerTrajectory("not-"+kind.name, true, kind.parse)
	}
}

// trajectoryCheck scores the tool steps of a case: pass or not, and why.
type trajectoryCheck func(steps []toolStep, inverse bool) (bool, string)

// registerTrajectory registers one trajectory type. Its negate is the check's inverse, read
// here and not again by Evaluate: 5.x does not pass `negate` on to the trajectory graders.
func registerTrajectory(name string, inverse bool, parse func(json.RawMessage) (trajectoryCheck, error)) {
	suite.RegisterEvaluator(suite.EvaluatorType{Name: name, Keys: []string{"value", "metric", "transform"},
		Parse: func(spec *suite.EvaluatorSpec) (any, error) {
			common, cerr := parseCommon(spec)
			s, err := settingsOf(spec)
			if err != nil {
				return nil, errors.Join(cerr, err)
			}
			raw, _ := s.raw("value")
			if raw == nil {
				return nil, errors.Join(cerr, fmt.Errorf("%s needs `value`", name))
			}
			check, err := parse(raw)
			if err = errors.Join(cerr, err); err != nil {
				return nil, err
			}
			inv := inverse != common.negate // not-X with negate: true is X again
			common.negate = false
			return &parsedEntry{common: common, run: func(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec) verdict {
				steps, ok := toolSteps(r)
				if !ok {
					return passFail(false, fmt.Sprintf("No trace data available for %s assertion", strings.TrimPrefix(name, "not-")))
				}
				return passFail(check(steps, inv))
			}}, nil
		}})
}

// passFail is a 1 or 0 verdict with one criterion.
func passFail(pass bool, text string) verdict {
	v := v4Verdict(b2f(pass), []v4Assertion{{Text: text, Passed: pass}})
	v.reasoning = text
	v.forcePass, v.forceFail = pass, !pass
	return v
}

// toolStep is one tool call of the answer as 5.x's trajectory sees it.
type toolStep struct {
	name    string
	args    any
	hasArgs bool
	start   time.Time
}

// commandTools are the shell tools whose calls 5.x counts as commands, not tools
// (trajectory.ts, COMMAND_TOOL_NAMES): the trajectory:tool-* checks do not see them.
var commandTools = map[string]bool{"exec_command": true, "local_shell": true, "shell": true}

// toolSteps lists the answer's tool calls in the order they started (when each has a start
// time; else as recorded), without shell commands. ok is false when the target left no
// trace: no output messages at all.
func toolSteps(r *caseRun) ([]toolStep, bool) {
	if r.in.Response == nil || len(r.in.Response.OutputMessages) == 0 {
		return nil, false
	}
	var steps []toolStep
	for _, m := range r.in.Response.OutputMessages {
		var items []struct {
			Tool      string          `json:"tool"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			Args      json.RawMessage `json:"args"`
			Arguments json.RawMessage `json:"arguments"`
			StartTime string          `json:"start_time"`
		}
		if isNull(m.ToolCalls) || json.Unmarshal(m.ToolCalls, &items) != nil {
			continue
		}
		for _, it := range items {
			st := toolStep{name: cmp.Or(it.Tool, it.Name)}
			in := it.Input
			for _, alt := range []json.RawMessage{it.Args, it.Arguments} {
				if isNull(in) {
					in = alt
				}
			}
			st.args, st.hasArgs = structuredArgs(in)
			if commandTools[strings.ToLower(st.name)] && shellCommand(st.args) != "" {
				continue
			}
			st.start, _ = time.Parse(time.RFC3339Nano, it.StartTime)
			steps = append(steps, st)
		}
	}
	slices.SortStableFunc(steps, func(a, b toolStep) int {
		if a.start.IsZero() || b.start.IsZero() {
			return 0
		}
		return a.start.Compare(b.start)
	})
	return steps, true
}

// structuredArgs decodes a tool input: a string holding JSON is that JSON, other text is the
// text trimmed; absent, null and blank inputs are no arguments (normalizeStructuredValue).
func structuredArgs(raw json.RawMessage) (any, bool) {
	var v any
	if isNull(raw) || json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	s, ok := v.(string)
	if !ok {
		return v, true
	}
	if s = strings.TrimSpace(s); s == "" {
		return nil, false
	}
	var parsed any
	if json.Unmarshal([]byte(s), &parsed) == nil {
		return parsed, true
	}
	return s, true
}

// shellCommand is the command a shell tool ran (cmd, command or commands), "" for none.
func shellCommand(args any) string {
	in, _ := args.(map[string]any)
	if in == nil {
		return ""
	}
	c := in["cmd"]
	if c == nil {
		c = in["command"]
	}
	if c == nil {
		c = in["commands"]
	}
	switch x := c.(type) {
	case string:
		return strings.TrimSpace(x)
	case []any:
		var parts []string
		for _, p := range x {
			if s := strings.TrimSpace(jsString(p)); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// stepMatcher selects tool steps: by a glob (`*`, `?`, case-insensitive) over the name, and
// by step type, where only "tool" can match a tool step.
type stepMatcher struct {
	pattern string // "" matches every name
	typeOK  bool
}

func (m stepMatcher) label() string { return cmp.Or(m.pattern, "*") }

func (m stepMatcher) matches(s toolStep) bool {
	return m.typeOK && (m.pattern == "" || globMatch(m.pattern, s.name))
}

// globMatch matches a whole name against a pattern of `*` and `?`, ignoring case.
func globMatch(pattern, name string) bool {
	var b strings.Builder
	b.WriteString("(?is)^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(name)
}

// parseMatcher reads a step: a pattern string, or {name | pattern, type?}. named requires a
// name or pattern (5.x's requireNamedMatcher); what names the step in errors.
func parseMatcher(v any, named bool, what string) (stepMatcher, error) {
	if s, ok := v.(string); ok {
		if named && s == "" {
			return stepMatcher{}, fmt.Errorf("%s must include a name or pattern property", what)
		}
		return stepMatcher{pattern: s, typeOK: true}, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return stepMatcher{}, fmt.Errorf("%s must be a tool name or {name, pattern?, type?}, got %s", what, jsKind(v))
	}
	m := stepMatcher{typeOK: true}
	pattern, _ := obj["pattern"].(string)
	name, _ := obj["name"].(string)
	m.pattern = cmp.Or(pattern, name)
	if named && m.pattern == "" {
		return stepMatcher{}, fmt.Errorf("%s must include a name or pattern property", what)
	}
	switch t := obj["type"].(type) {
	case nil:
	case string:
		m.typeOK = t == "tool" || t == ""
	case []any:
		m.typeOK = slices.Contains(t, any("tool"))
	}
	return m, nil
}

// jsKind names a decoded JSON value's kind for messages.
func jsKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	}
	return "a mapping"
}

// stepList is "tool:a, tool:b" or "(none)".
func stepList(steps []toolStep) string {
	if len(steps) == 0 {
		return "(none)"
	}
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = "tool:" + s.name
	}
	return strings.Join(out, ", ")
}

func decodeValue(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// parseToolUsed reads trajectory:tool-used's value: a tool (pattern) or a list of them, each
// required (or, inverted, forbidden); or {name | pattern, min (default 1), max} counting the
// matching calls.
func parseToolUsed(raw json.RawMessage) (trajectoryCheck, error) {
	const what = "trajectory:tool-used"
	v := decodeValue(raw)
	var list []stepMatcher
	switch x := v.(type) {
	case string:
		list = []stepMatcher{{pattern: x, typeOK: true}}
	case []any:
		for i, item := range x {
			s, ok := item.(string)
			if !ok {
				return nil, settingErr(fmt.Sprintf("value[%d]", i), "must be a tool name, got %s", jsKind(item))
			}
			list = append(list, stepMatcher{pattern: s, typeOK: true})
		}
		if len(list) == 0 {
			return nil, settingErr("value", "%s needs at least one expected tool", what)
		}
	case map[string]any:
		return parseToolCount(x)
	default:
		return nil, settingErr("value", "%s value must be a tool name, a list of them or {name, min?, max?}, got %s", what, jsKind(v))
	}
	return func(steps []toolStep, inverse bool) (bool, string) {
		var missing, matched []string
		for _, m := range list {
			if slices.ContainsFunc(steps, m.matches) {
				matched = append(matched, m.label())
			} else {
				missing = append(missing, m.label())
			}
		}
		labels := make([]string, len(list))
		for i, m := range list {
			labels[i] = m.label()
		}
		if inverse {
			if len(matched) == 0 {
				return true, "Forbidden tool(s) were not used: " + strings.Join(labels, ", ")
			}
			return false, fmt.Sprintf("Forbidden tool(s) were used: %s. Actual tools: %s", strings.Join(matched, ", "), stepList(steps))
		}
		if len(missing) == 0 {
			return true, fmt.Sprintf("Observed required tool(s): %s. Actual tools: %s", strings.Join(labels, ", "), stepList(steps))
		}
		return false, fmt.Sprintf("Missing required tool(s): %s. Actual tools: %s", strings.Join(missing, ", "), stepList(steps))
	}, nil
}

// parseToolCount reads {name | pattern, min, max}: min defaults to 1; a bound that is not a
// number is no bound, as in 5.x.
func parseToolCount(obj map[string]any) (trajectoryCheck, error) {
	m, err := parseMatcher(obj, true, "trajectory:tool-used assertion object")
	if err != nil {
		return nil, settingErr("value", "%v", err)
	}
	minimum, _ := obj["min"].(float64)
	if _, ok := obj["min"].(float64); !ok {
		minimum = 1
	}
	maximum, hasMax := obj["max"].(float64)
	return func(steps []toolStep, inverse bool) (bool, string) {
		var matches []toolStep
		for _, s := range steps {
			if m.matches(s) {
				matches = append(matches, s)
			}
		}
		n := float64(len(matches))
		base := n >= minimum && (!hasMax || n <= maximum)
		if inverse {
			if base {
				return false, fmt.Sprintf("Tool %q matched %d time(s), which violates the inverse assertion", m.label(), len(matches))
			}
			return true, fmt.Sprintf("Tool %q did not satisfy the forbidden match condition", m.label())
		}
		text := fmt.Sprintf("Matched tool %q %d time(s)", m.label(), len(matches))
		if hasMax {
			text += fmt.Sprintf(" (expected %s-%s)", jsNumber(minimum), jsNumber(maximum))
		} else {
			text += fmt.Sprintf(" (expected at least %s)", jsNumber(minimum))
		}
		if len(matches) > 0 {
			text += ". Matches: " + stepList(matches)
		}
		return base, text
	}, nil
}

// parseToolSequence reads trajectory:tool-sequence's value: a list of steps (in order, others
// may come between), or {mode: exact | in_order, steps}.
func parseToolSequence(raw json.RawMessage) (trajectoryCheck, error) {
	v := decodeValue(raw)
	exact := false
	var items []any
	path := "value"
	switch x := v.(type) {
	case []any:
		items = x
	case map[string]any:
		exact = x["mode"] == "exact"
		items, _ = x["steps"].([]any)
		path = "value.steps"
	default:
		return nil, settingErr("value", "trajectory:tool-sequence value must be a list of steps or {mode, steps}, got %s", jsKind(v))
	}
	if len(items) == 0 {
		// 5.3.1-next.1 loads the file and fails the assertion when it runs, whatever the
		// answer and negation (graders/trajectory.ts:389-391): the test's other assertions count.
		return func([]toolStep, bool) (bool, string) {
			return false, fmt.Sprintf("trajectory:tool-sequence %s is an empty list: it needs at least one expected step, so it fails", path)
		}, nil
	}
	expected := make([]stepMatcher, len(items))
	for i, item := range items {
		m, err := parseMatcher(item, true, fmt.Sprintf("trajectory:tool-sequence assertion step %d", i+1))
		if err != nil {
			return nil, settingErr(fmt.Sprintf("%s[%d]", path, i), "%v", err)
		}
		expected[i] = m
	}
	return func(steps []toolStep, inverse bool) (bool, string) {
		var base bool
		var text string
		if exact {
			base = len(steps) == len(expected)
			for i := 0; base && i < len(expected); i++ {
				base = expected[i].matches(steps[i])
			}
			if base {
				text = "Observed exact tool sequence: " + stepList(steps)
			} else {
				labels := make([]string, len(expected))
				for i, m := range expected {
					labels[i] = m.label()
				}
				text = fmt.Sprintf("Expected exact tool sequence of %s, but actual tools were %s", strings.Join(labels, ", "), stepList(steps))
			}
		} else {
			next := 0
			var seen []toolStep
			for _, s := range steps {
				if next < len(expected) && expected[next].matches(s) {
					seen = append(seen, s)
					next++
				}
			}
			base = next == len(expected)
			if base {
				text = fmt.Sprintf("Observed tool sequence in order: %s. Actual tools: %s", stepList(seen), stepList(steps))
			} else {
				text = fmt.Sprintf("Expected tool %q was not observed in order. Actual tools: %s", expected[next].label(), stepList(steps))
			}
		}
		if !inverse {
			return base, text
		}
		if base {
			return false, "Forbidden tool sequence was observed. Actual tools: " + stepList(steps)
		}
		return true, "Forbidden tool sequence was not observed"
	}, nil
}

// parseToolArgsMatch reads trajectory:tool-args-match's value: {name | pattern, args (or
// arguments), mode: partial (default) | exact, defaults?, ignore?}. It passes when some call
// of the tool has matching arguments: partial compares the expected keys (recursively; lists
// item by item, of the same length), exact the whole arguments; `ignore` drops top-level
// keys (globs allowed) from both sides and `defaults` drops a call's arguments equal to them.
func parseToolArgsMatch(raw json.RawMessage) (trajectoryCheck, error) {
	obj, ok := decodeValue(raw).(map[string]any)
	if !ok {
		return nil, settingErr("value", "trajectory:tool-args-match value must be {name, args, mode?}, got %s", jsKind(decodeValue(raw)))
	}
	m, err := parseMatcher(obj, true, "trajectory:tool-args-match assertion object")
	if err != nil {
		return nil, settingErr("value", "%v", err)
	}
	want, has := obj["args"]
	if !has {
		want, has = obj["arguments"]
	}
	if !has {
		return nil, settingErr("value", "trajectory:tool-args-match needs `args` (or `arguments`)")
	}
	mode := "partial"
	if v, ok := obj["mode"]; ok {
		if mode, _ = v.(string); mode != "partial" && mode != "exact" {
			return nil, settingErr("value.mode", `must be "partial" or "exact"`)
		}
	}
	defaults, hasDefaults := obj["defaults"].(map[string]any)
	if d, ok := obj["defaults"]; ok && !hasDefaults && d != nil {
		return nil, settingErr("value.defaults", "must be a mapping of argument names to default values")
	}
	var ignore []string
	switch x := obj["ignore"].(type) {
	case nil:
	case string:
		ignore = []string{x}
	case []any:
		for _, it := range x {
			s, _ := it.(string)
			ignore = append(ignore, s)
		}
	default:
		ignore = []string{""}
	}
	if slices.ContainsFunc(ignore, func(s string) bool { return strings.TrimSpace(s) == "" }) {
		return nil, settingErr("value.ignore", "must be a non-empty string or a list of them")
	}
	wantClean, _ := stripArgs(want, func(k string, _ any) bool { return ignored(k, ignore) })
	wantJSON, _ := json.Marshal(want)
	return func(steps []toolStep, inverse bool) (bool, string) {
		var matching, withArgs []toolStep
		for _, s := range steps {
			if m.matches(s) {
				matching = append(matching, s)
				if s.hasArgs {
					withArgs = append(withArgs, s)
				}
			}
		}
		var found *toolStep
		var droppedIgnored, droppedDefaults []string
		for i := range withArgs {
			got, ign := stripArgs(withArgs[i].args, func(k string, _ any) bool { return ignored(k, ignore) })
			got, def := stripArgs(got, func(k string, v any) bool {
				d, ok := defaults[k]
				return hasDefaults && ok && reflect.DeepEqual(v, d)
			})
			if mode == "exact" && reflect.DeepEqual(got, wantClean) || mode == "partial" && partialArgs(got, wantClean) {
				found, droppedIgnored, droppedDefaults = &withArgs[i], ign, def
				break
			}
		}
		observed := "(none)"
		if len(withArgs) > 0 {
			parts := make([]string, len(withArgs))
			for i, s := range withArgs {
				parts[i] = argsText(s.args)
			}
			observed = strings.Join(parts, ", ")
		}
		if inverse {
			switch {
			case found != nil:
				return false, fmt.Sprintf("Forbidden argument match for tool %q was observed on tool:%s. Args: %s", m.label(), found.name, argsText(found.args))
			case len(matching) == 0:
				return true, fmt.Sprintf("Forbidden argument match for tool %q was not observed because no tool call matched it", m.label())
			}
			return true, fmt.Sprintf("Forbidden argument match for tool %q was not observed. Observed args: %s", m.label(), observed)
		}
		switch {
		case found != nil:
			text := fmt.Sprintf("Tool %q matched expected arguments (%s) on tool:%s. Args: %s", m.label(), mode, found.name, argsText(found.args))
			if len(droppedIgnored) > 0 {
				text += ". Ignored argument(s): " + strings.Join(droppedIgnored, ", ")
			}
			if len(droppedDefaults) > 0 {
				text += ". Ignored default argument(s): " + strings.Join(droppedDefaults, ", ")
			}
			return true, text
		case len(matching) == 0:
			return false, fmt.Sprintf("No tool call matched %q. Actual tools: %s", m.label(), stepList(steps))
		case len(withArgs) == 0:
			return false, fmt.Sprintf("Tool %q was observed but no arguments were captured. Actual tools: %s", m.label(), stepList(steps))
		}
		return false, fmt.Sprintf("No call to tool %q matched expected arguments (%s): %s. Observed args: %s", m.label(), mode, wantJSON, observed)
	}, nil
}

// ignored tells whether an argument name is in ignore: equal, or matching a glob entry.
func ignored(key string, ignore []string) bool {
	return slices.ContainsFunc(ignore, func(e string) bool {
		if strings.ContainsAny(e, "*?") {
			return globMatch(e, key)
		}
		return e == key
	})
}

// stripArgs drops the top-level keys drop selects from a mapping (anything else is kept as
// it is) and names them in order of the mapping's keys.
func stripArgs(v any, drop func(string, any) bool) (any, []string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	out := make(map[string]any, len(obj))
	var dropped []string
	for _, k := range sortedKeys(obj) {
		if drop(k, obj[k]) {
			dropped = append(dropped, k)
			continue
		}
		out[k] = obj[k]
	}
	return out, dropped
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// partialArgs is 5.x's matchesExpectedArgsPartial: expected mappings need their keys (the
// actual may have more), lists the same length item by item, anything else equality.
func partialArgs(got, want any) bool {
	switch w := want.(type) {
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !partialArgs(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, has := g[k]
			if !has || !partialArgs(gv, wv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

// argsText renders arguments as JSON for messages.
func argsText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
