package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/agentv/action/suite"
)

// Trajectory modes, as AgentV 2.5 names them.
const (
	modeAnyOrder = "any_order"
	modeInOrder  = "in_order"
	modeExact    = "exact"
)

type expectedCall struct {
	Tool string `json:"tool"`
	// Args is "any" or an object whose keys must all be present and equal in the call's input.
	Args json.RawMessage `json:"args"`
	// MaxDurationMS bounds the matched call's duration_ms (AgentV 2.5 documents it but never
	// parses it; we honour it).
	MaxDurationMS *float64 `json:"max_duration_ms"`
	args          map[string]any
}

type trajectoryConfig struct {
	mode     string
	minimums map[string]int
	expected []expectedCall
}

func init() { register(TypeToolTrajectory, nil, parseTrajectory, toolTrajectory) }

func parseTrajectory(spec *suite.EvaluatorSpec) (*trajectoryConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &trajectoryConfig{}
	if _, err := s.decode(&cfg.mode, "mode"); err != nil {
		return nil, err
	}
	switch cfg.mode {
	case modeAnyOrder:
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
	case modeInOrder, modeExact:
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
		}
		return cfg, nil
	case "":
		return nil, errors.New("tool_trajectory needs `mode` (any_order, in_order or exact)")
	}
	return nil, settingErr("mode", "unknown mode %q (want any_order, in_order or exact)", cfg.mode)
}

// toolCall is one call the target made, from its output messages' tool_calls.
type toolCall struct {
	name       string
	input      any
	output     json.RawMessage // what the tool returned, as the target reported it
	durationMS *float64
}

func toolCalls(r *caseRun) []toolCall {
	var calls []toolCall
	if r.in.Response == nil {
		return nil
	}
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
			c := toolCall{name: it.Tool, durationMS: it.DurationMS, output: it.Output}
			if c.name == "" {
				c.name = it.Name
			}
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

// toolTrajectory checks which tools the target called, and in what order.
func toolTrajectory(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *trajectoryConfig) verdict {
	calls := toolCalls(r)
	if len(calls) == 0 && r.in.Trace == nil {
		return binary(false, "", "no trace available for evaluation", "the target reported no tool calls and no trace")
	}
	if cfg.mode == modeAnyOrder {
		return anyOrder(cfg, calls, r)
	}
	return sequence(cfg, calls)
}

func anyOrder(cfg *trajectoryConfig, calls []toolCall, r *caseRun) verdict {
	counts := map[string]int{}
	for _, c := range calls {
		counts[c.name]++
	}
	if len(calls) == 0 && r.in.Trace != nil {
		for name, n := range r.in.Trace.ToolCallsByName {
			counts[name] = n
		}
	}
	names := make([]string, 0, len(cfg.minimums))
	for name := range cfg.minimums {
		names = append(names, name)
	}
	sort.Strings(names)
	v := verdict{score: 1, hits: []string{}, misses: []string{}}
	ok := 0
	for _, name := range names {
		min, got := cfg.minimums[name], counts[name]
		if got >= min {
			ok++
			v.hits = append(v.hits, fmt.Sprintf("%s called %d time(s) (minimum %d)", name, got, min))
		} else {
			v.misses = append(v.misses, fmt.Sprintf("%s called %d time(s), want at least %d", name, got, min))
		}
	}
	if len(names) > 0 {
		v.score = float64(ok) / float64(len(names))
	}
	v.reasoning = fmt.Sprintf("%d/%d tool minimums met", ok, len(names))
	return v
}

// sequence scores in_order and exact: (sequence hits + latency hits) / (expected calls +
// latency assertions that could be checked).
func sequence(cfg *trajectoryConfig, calls []toolCall) verdict {
	v := verdict{hits: []string{}, misses: []string{}}
	hits, total := 0, len(cfg.expected)
	matched := func(i int, e *expectedCall, c *toolCall) {
		hits++
		v.hits = append(v.hits, fmt.Sprintf("call %d: %s", i+1, e.Tool))
		if e.MaxDurationMS != nil && c.durationMS != nil {
			total++
			if *c.durationMS <= *e.MaxDurationMS {
				hits++
				v.hits = append(v.hits, fmt.Sprintf("%s took %.0f ms (max %.0f)", e.Tool, *c.durationMS, *e.MaxDurationMS))
			} else {
				v.misses = append(v.misses, fmt.Sprintf("%s took %.0f ms, max %.0f", e.Tool, *c.durationMS, *e.MaxDurationMS))
			}
		}
	}
	if cfg.mode == modeExact {
		if len(calls) != len(cfg.expected) {
			v.misses = append(v.misses, fmt.Sprintf("expected %d tool calls, got %d", len(cfg.expected), len(calls)))
		}
		for i := range cfg.expected {
			e := &cfg.expected[i]
			switch {
			case i >= len(calls):
				v.misses = append(v.misses, fmt.Sprintf("call %d: expected %s, no call", i+1, e.Tool))
			case calls[i].name != e.Tool:
				v.misses = append(v.misses, fmt.Sprintf("call %d: expected %s, got %s", i+1, e.Tool, calls[i].name))
			case !argsMatch(e.args, calls[i].input):
				v.misses = append(v.misses, fmt.Sprintf("call %d: %s called with other arguments", i+1, e.Tool))
			default:
				matched(i, e, &calls[i])
			}
		}
	} else {
		cursor := 0
		for i := range cfg.expected {
			e := &cfg.expected[i]
			found := -1
			for k := cursor; k < len(calls); k++ {
				if calls[k].name == e.Tool {
					found = k
					break
				}
			}
			if found < 0 {
				v.misses = append(v.misses, fmt.Sprintf("expected %s (step %d) not called in order", e.Tool, i+1))
				continue
			}
			cursor = found + 1
			if !argsMatch(e.args, calls[found].input) {
				v.misses = append(v.misses, fmt.Sprintf("step %d: %s called with other arguments", i+1, e.Tool))
				continue
			}
			matched(i, e, &calls[found])
		}
	}
	switch {
	case total > 0:
		v.score = float64(hits) / float64(total)
	case len(v.misses) == 0:
		v.score = 1
	}
	v.reasoning = fmt.Sprintf("%d/%d trajectory checks passed (%s)", hits, total, cfg.mode)
	return v
}

// argsMatch: every expected key is present in the call's input with an equal value;
// extra keys in the input are fine. nil want means any arguments.
func argsMatch(want map[string]any, input any) bool {
	if want == nil {
		return true
	}
	got, ok := input.(map[string]any)
	if !ok {
		return len(want) == 0
	}
	for k, wv := range want {
		gv, ok := got[k]
		if !ok || !jsonEqual(wv, gv) {
			return false
		}
	}
	return true
}
