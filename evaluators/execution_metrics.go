package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"math"

	"github.com/agentv/action/suite"
)

// explorationTools are the tool names that count as exploring (reading, searching) in
// target_exploration_ratio, as AgentV 4.x names them (case matters).
var explorationTools = []string{"read", "grep", "glob", "search", "list", "Read", "Grep", "Glob", "WebSearch", "WebFetch"}

// defaultExplorationTolerance is how far the exploration ratio may be from its target when
// exploration_tolerance is not set.
const defaultExplorationTolerance = 0.2

// metricsSettings are execution-metrics' settings (and their camelCase spellings), in the order
// they are checked; all but exploration_tolerance are limits.
var metricsSettings = [][2]string{
	{"max_tool_calls", "maxToolCalls"}, {"max_llm_calls", "maxLlmCalls"}, {"max_tokens", "maxTokens"},
	{"max_cost_usd", "maxCostUsd"}, {"max_duration_ms", "maxDurationMs"},
	{"target_exploration_ratio", "targetExplorationRatio"}, {"exploration_tolerance", "explorationTolerance"},
}

// execution-metrics (AgentV 4.x) checks what a run cost against limits.
func init() {
	register("execution-metrics", []string{"execution_metrics"}, nil, parseMetricsLimits, executionMetrics)
}

// parseMetricsLimits reads the settings that are set, by their snake_case names.
func parseMetricsLimits(spec *suite.EvaluatorSpec) (map[string]float64, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	l := map[string]float64{}
	var errs []error
	for _, k := range metricsSettings {
		if v, ok, err := s.number(k[0], k[1]); err != nil {
			errs = append(errs, err)
		} else if ok {
			l[k[0]] = v
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if _, tol := l["exploration_tolerance"]; len(l) == 0 || len(l) == 1 && tol {
		return nil, errors.New("execution-metrics needs at least one of `max_tool_calls`, `max_llm_calls`, `max_tokens`, " +
			"`max_cost_usd`, `max_duration_ms`, `target_exploration_ratio`")
	}
	return l, nil
}

// executionMetrics scores the share of configured limits the run kept: each limit is one
// check, and a measure the target did not report fails its check.
func executionMetrics(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, l map[string]float64) verdict {
	// The measures: tool calls, assistant messages (a plain answer is one), tokens (input +
	// output), cost, duration, and the tool calls of exploration tools.
	byName := map[string]int{}
	calls := toolCalls(r)
	for _, c := range calls {
		byName[c.name]++
	}
	explorative := 0
	for _, name := range explorationTools {
		explorative += byName[name]
	}
	toolCount, llmCalls := float64(len(calls)), 0.0
	var tokens, costUSD, durationMS *float64
	if resp := r.in.Response; resp != nil {
		for _, msg := range resp.OutputMessages {
			llmCalls += b2f(msg.Role == suite.RoleAssistant)
		}
		if len(resp.OutputMessages) == 0 {
			llmCalls = 1
		}
		if u := resp.Usage; u != nil {
			t := float64(u.Input + u.Output)
			tokens = &t
		}
		costUSD, durationMS = resp.CostUSD, resp.DurationMS
	}
	var c checklist
	config, actual := map[string]float64{}, map[string]float64{}
	for _, m := range []struct {
		limit, measure, label, missing string
		got                            *float64
		format                         func(float64) string
	}{
		{"max_tool_calls", "tool_calls", "Tool calls", "", &toolCount, jsNumber},
		{"max_llm_calls", "llm_calls", "LLM calls", "", &llmCalls, jsNumber},
		{"max_tokens", "tokens", "Total tokens", "Token usage data not available", tokens, jsNumber},
		{"max_cost_usd", "cost_usd", "Cost", "Cost data not available", costUSD,
			func(f float64) string { return "$" + jsFixed(f, 4) }},
		{"max_duration_ms", "duration_ms", "Duration", "Duration data not available", durationMS,
			func(f float64) string { return jsNumber(f) + "ms" }},
	} {
		limit, ok := l[m.limit]
		if !ok {
			continue
		}
		config[m.limit] = limit
		if m.got == nil {
			c.check(false, "%s", m.missing)
			continue
		}
		actual[m.measure] = *m.got
		op := map[bool]string{true: "<=", false: ">"}[*m.got <= limit]
		c.check(*m.got <= limit, "%s %s %s %s max", m.label, m.format(*m.got), op, m.format(limit))
	}
	if target, ok := l["target_exploration_ratio"]; ok {
		tol, ok := l["exploration_tolerance"]
		if !ok {
			tol = defaultExplorationTolerance
		}
		config["target_exploration_ratio"], config["exploration_tolerance"] = target, tol
		if len(calls) == 0 {
			c.check(false, "Exploration ratio not available (no tool calls)")
		} else {
			ratio := float64(explorative) / toolCount
			actual["exploration_ratio"] = ratio
			if diff := math.Abs(ratio - target); diff <= tol {
				c.check(true, "Exploration ratio %s within tolerance of target %s", jsFixed(ratio, 2), jsNumber(target))
			} else {
				c.check(false, "Exploration ratio %s outside tolerance of target %s (diff: %s, tolerance: %s)",
					jsFixed(ratio, 2), jsNumber(target), jsFixed(diff, 2), jsNumber(tol))
			}
		}
	}
	v := c.verdict(0)
	if n := len(c.texts); n > 0 {
		v.score = float64(len(v.hits)) / float64(n)
	}
	var act any = actual
	if len(actual) == 0 {
		act = nil
	}
	v.details, _ = json.Marshal(map[string]any{"config": config, "actual": act})
	return v
}
