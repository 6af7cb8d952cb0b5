package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/suite"
)

// TypeExecutionMetrics checks what a run cost against limits (AgentV 4.x's execution-metrics).
const TypeExecutionMetrics = "execution-metrics"

// explorationTools are the tool names that count as exploring (reading, searching) in
// target_exploration_ratio, as AgentV 4.x names them (case matters).
var explorationTools = []string{"read", "grep", "glob", "search", "list", "Read", "Grep", "Glob", "WebSearch", "WebFetch"}

// defaultExplorationTolerance is how far the exploration ratio may be from its target when
// exploration_tolerance is not set.
const defaultExplorationTolerance = 0.2

// metricsLimits are the thresholds of one execution-metrics entry; nil is not checked.
type metricsLimits struct {
	maxToolCalls, maxLLMCalls, maxTokens, maxCostUSD, maxDurationMS *float64
	targetExploration, explorationTolerance                         *float64
}

func init() {
	register(TypeExecutionMetrics, []string{"execution_metrics"}, parseMetricsLimits, executionMetrics)
}

func parseMetricsLimits(spec *suite.EvaluatorSpec) (*metricsLimits, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	l := &metricsLimits{}
	var errs []error
	for _, k := range []struct {
		dst        **float64
		snake, cml string
	}{
		{&l.maxToolCalls, "max_tool_calls", "maxToolCalls"},
		{&l.maxLLMCalls, "max_llm_calls", "maxLlmCalls"},
		{&l.maxTokens, "max_tokens", "maxTokens"},
		{&l.maxCostUSD, "max_cost_usd", "maxCostUsd"},
		{&l.maxDurationMS, "max_duration_ms", "maxDurationMs"},
		{&l.targetExploration, "target_exploration_ratio", "targetExplorationRatio"},
		{&l.explorationTolerance, "exploration_tolerance", "explorationTolerance"},
	} {
		v, ok, err := s.number(k.snake, k.cml)
		if err != nil {
			errs = append(errs, err)
		} else if ok {
			*k.dst = &v
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if l.maxToolCalls == nil && l.maxLLMCalls == nil && l.maxTokens == nil && l.maxCostUSD == nil &&
		l.maxDurationMS == nil && l.targetExploration == nil {
		return nil, errors.New("execution-metrics needs at least one of `max_tool_calls`, `max_llm_calls`, `max_tokens`, " +
			"`max_cost_usd`, `max_duration_ms`, `target_exploration_ratio`")
	}
	return l, nil
}

// runMetrics are the measures of one target answer that execution-metrics checks.
type runMetrics struct {
	toolCalls   int
	byName      map[string]int
	llmCalls    int      // assistant messages of the answer (a plain answer is one)
	tokens      *float64 // input + output
	costUSD     *float64
	durationMS  *float64
	explorative int // tool calls whose name is an exploration tool
}

func metricsOf(r *caseRun) runMetrics {
	m := runMetrics{byName: map[string]int{}}
	for _, c := range toolCalls(r) {
		m.toolCalls++
		m.byName[c.name]++
	}
	for _, name := range explorationTools {
		m.explorative += m.byName[name]
	}
	resp := r.in.Response
	if resp == nil {
		return m
	}
	for _, msg := range resp.OutputMessages {
		if msg.Role == suite.RoleAssistant {
			m.llmCalls++
		}
	}
	if len(resp.OutputMessages) == 0 {
		m.llmCalls = 1 // the answer text is the one assistant message
	}
	if u := resp.Usage; u != nil {
		t := float64(u.Input + u.Output)
		m.tokens = &t
	}
	m.costUSD, m.durationMS = resp.CostUSD, resp.DurationMS
	return m
}

// executionMetrics scores the share of configured limits the run kept: each limit is one
// check, and a measure the target did not report fails its check.
func executionMetrics(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, l *metricsLimits) verdict {
	m := metricsOf(r)
	v := verdict{hits: []string{}, misses: []string{}}
	config, actual := map[string]float64{}, map[string]float64{}
	var texts []string // the checks in order, for the reasoning
	check := func(ok bool, text string) {
		texts = append(texts, text)
		if ok {
			v.hits = append(v.hits, text)
		} else {
			v.misses = append(v.misses, text)
		}
	}
	atMost := func(label string, got, limit float64, unit string, format func(float64) string) {
		if got <= limit {
			check(true, fmt.Sprintf("%s %s%s <= %s%s max", label, format(got), unit, format(limit), unit))
		} else {
			check(false, fmt.Sprintf("%s %s%s > %s%s max", label, format(got), unit, format(limit), unit))
		}
	}
	if p := l.maxToolCalls; p != nil {
		config["max_tool_calls"], actual["tool_calls"] = *p, float64(m.toolCalls)
		atMost("Tool calls", float64(m.toolCalls), *p, "", jsNumber)
	}
	if p := l.maxLLMCalls; p != nil {
		config["max_llm_calls"], actual["llm_calls"] = *p, float64(m.llmCalls)
		atMost("LLM calls", float64(m.llmCalls), *p, "", jsNumber)
	}
	if p := l.maxTokens; p != nil {
		config["max_tokens"] = *p
		if m.tokens == nil {
			check(false, "Token usage data not available")
		} else {
			actual["tokens"] = *m.tokens
			atMost("Total tokens", *m.tokens, *p, "", jsNumber)
		}
	}
	if p := l.maxCostUSD; p != nil {
		config["max_cost_usd"] = *p
		if m.costUSD == nil {
			check(false, "Cost data not available")
		} else {
			actual["cost_usd"] = *m.costUSD
			atMost("Cost", *m.costUSD, *p, "", func(f float64) string { return "$" + jsFixed(f, 4) })
		}
	}
	if p := l.maxDurationMS; p != nil {
		config["max_duration_ms"] = *p
		if m.durationMS == nil {
			check(false, "Duration data not available")
		} else {
			actual["duration_ms"] = *m.durationMS
			atMost("Duration", *m.durationMS, *p, "ms", jsNumber)
		}
	}
	if p := l.targetExploration; p != nil {
		tol := defaultExplorationTolerance
		if l.explorationTolerance != nil {
			tol = *l.explorationTolerance
		}
		config["target_exploration_ratio"], config["exploration_tolerance"] = *p, tol
		if m.toolCalls == 0 {
			check(false, "Exploration ratio not available (no tool calls)")
		} else {
			ratio := float64(m.explorative) / float64(m.toolCalls)
			actual["exploration_ratio"] = ratio
			diff := ratio - *p
			if diff < 0 {
				diff = -diff
			}
			if diff <= tol {
				check(true, fmt.Sprintf("Exploration ratio %s within tolerance of target %s", jsFixed(ratio, 2), jsNumber(*p)))
			} else {
				check(false, fmt.Sprintf("Exploration ratio %s outside tolerance of target %s (diff: %s, tolerance: %s)",
					jsFixed(ratio, 2), jsNumber(*p), jsFixed(diff, 2), jsNumber(tol)))
			}
		}
	}
	if n := len(v.hits) + len(v.misses); n > 0 {
		v.score = float64(len(v.hits)) / float64(n)
	}
	v.reasoning = strings.Join(texts, "; ")
	var act any = actual
	if len(actual) == 0 {
		act = nil
	}
	v.details, _ = json.Marshal(map[string]any{"config": config, "actual": act})
	return v
}
