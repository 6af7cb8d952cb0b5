package evaluators

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/suite"
)

func init() {
	register(TypeLatency, nil, limitParser("latency needs `threshold` (milliseconds)", "threshold", "max_duration_ms", "maxDurationMs"), latency)
	register(TypeCost, nil, limitParser("cost needs `budget` (USD)", "budget", "max_cost_usd", "maxCostUsd"), cost)
	register(TypeTokenUsage, nil, parseTokenLimits, tokenUsage)
}

// limitParser reads a type's one number setting, under any of keys; missing says it is needed.
func limitParser(missing string, keys ...string) func(*suite.EvaluatorSpec) (float64, error) {
	return func(spec *suite.EvaluatorSpec) (float64, error) {
		s, err := settingsOf(spec)
		if err != nil {
			return 0, err
		}
		limit, ok, err := s.number(keys...)
		if err == nil && !ok {
			err = errors.New(missing)
		}
		return limit, err
	}
}

// latency passes (1) when the target's duration is within `threshold` ms (as in AgentV 2.5).
func latency(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, limit float64) verdict {
	t := r.in.Trace
	if t == nil || t.DurationMS == nil {
		return binary(false, "", "no duration data in the trace", "no duration data available")
	}
	d := *t.DurationMS
	return binary(d <= limit,
		fmt.Sprintf("duration %.0f ms within %.0f ms", d, limit),
		fmt.Sprintf("duration %.0f ms exceeds %.0f ms", d, limit),
		fmt.Sprintf("duration %.0f ms, threshold %.0f ms", d, limit))
}

// cost passes when the target's cost is within `budget` USD.
func cost(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, budget float64) verdict {
	t := r.in.Trace
	if t == nil || t.CostUSD == nil {
		return binary(false, "", "no cost data in the trace", "no cost data available")
	}
	c := *t.CostUSD
	return binary(c <= budget,
		fmt.Sprintf("cost $%.4f within budget $%.4f", c, budget),
		fmt.Sprintf("cost $%.4f exceeds budget $%.4f", c, budget),
		fmt.Sprintf("cost $%.4f, budget $%.4f", c, budget))
}

type tokenLimit struct {
	name string // input, output or total
	max  float64
}

// parseTokenLimits reads max_total, max_input and max_output; one at least is needed.
func parseTokenLimits(spec *suite.EvaluatorSpec) ([]tokenLimit, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	var limits []tokenLimit
	for _, k := range [][2]string{{"max_total", "maxTotal"}, {"max_input", "maxInput"}, {"max_output", "maxOutput"}} {
		if v, ok, err := s.number(k[0], k[1]); err != nil {
			return nil, err
		} else if ok {
			limits = append(limits, tokenLimit{strings.TrimPrefix(k[0], "max_"), v})
		}
	}
	if len(limits) == 0 {
		return nil, errors.New("token_usage needs at least one of `max_total`, `max_input`, `max_output`")
	}
	return limits, nil
}

// tokenUsage passes when every configured limit holds; total counts input, output and cached
// tokens.
func tokenUsage(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, limits []tokenLimit) verdict {
	t := r.in.Trace
	if t == nil || t.TokenUsage == nil {
		return binary(false, "", "no token usage in the trace", "no token usage available")
	}
	u := t.TokenUsage
	used := map[string]float64{"input": float64(u.Input), "output": float64(u.Output), "total": float64(u.Input + u.Output)}
	if u.Cached != nil {
		used["total"] += float64(*u.Cached)
	}
	v := verdict{score: 1, hits: []string{}, misses: []string{}}
	var parts []string
	for _, l := range limits {
		n := used[l.name]
		parts = append(parts, fmt.Sprintf("%s %.0f/%.0f", l.name, n, l.max))
		if n <= l.max {
			v.hits = append(v.hits, fmt.Sprintf("%s tokens %.0f within %.0f", l.name, n, l.max))
		} else {
			v.score = 0
			v.misses = append(v.misses, fmt.Sprintf("%s tokens %.0f exceed %.0f", l.name, n, l.max))
		}
	}
	v.reasoning = "tokens " + strings.Join(parts, ", ")
	return v
}

// binary is a pass/fail verdict: score 1 with hit, or 0 with miss.
func binary(ok bool, hit, miss, reasoning string) verdict {
	v := verdict{hits: []string{}, misses: []string{}, reasoning: reasoning}
	if ok {
		v.score = 1
		v.hits = append(v.hits, hit)
	} else {
		v.misses = append(v.misses, miss)
	}
	return v
}
