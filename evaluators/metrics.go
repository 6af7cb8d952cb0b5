package evaluators

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/suite"
)

// latency passes (1) when the target's duration is within `threshold` ms (reference §2.8).
func latency(_ context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict {
	s, err := settingsOf(spec)
	if err != nil {
		return verdict{err: err}
	}
	limit, ok, err := s.number("threshold", "max_duration_ms", "maxDurationMs")
	if err != nil {
		return verdict{err: err}
	} else if !ok {
		return verdict{err: errors.New("latency needs `threshold` (milliseconds)")}
	}
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
func cost(_ context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict {
	s, err := settingsOf(spec)
	if err != nil {
		return verdict{err: err}
	}
	budget, ok, err := s.number("budget", "max_cost_usd", "maxCostUsd")
	if err != nil {
		return verdict{err: err}
	} else if !ok {
		return verdict{err: errors.New("cost needs `budget` (USD)")}
	}
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

// tokenUsage passes when every configured limit (max_total, max_input, max_output) holds;
// total counts input, output and cached tokens.
func tokenUsage(_ context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict {
	s, err := settingsOf(spec)
	if err != nil {
		return verdict{err: err}
	}
	type limit struct {
		name string
		max  float64
	}
	var limits []limit
	for _, k := range [][2]string{{"max_total", "maxTotal"}, {"max_input", "maxInput"}, {"max_output", "maxOutput"}} {
		v, ok, err := s.number(k[0], k[1])
		if err != nil {
			return verdict{err: err}
		}
		if ok {
			limits = append(limits, limit{strings.TrimPrefix(k[0], "max_"), v})
		}
	}
	if len(limits) == 0 {
		return verdict{err: errors.New("token_usage needs at least one of `max_total`, `max_input`, `max_output`")}
	}
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
