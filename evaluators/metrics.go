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

// latency passes (1) when the target's duration is within `threshold` ms. Its texts are
// AgentV's (the same in 2.5 and 4.x).
func latency(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, limit float64) verdict {
	t := r.in.Trace
	if t == nil || t.DurationMS == nil {
		return assertion(false, "", "No duration data available in trace")
	}
	d := *t.DurationMS
	if d <= limit {
		return assertion(true, fmt.Sprintf("Duration %sms <= %sms threshold", jsNumber(d), jsNumber(limit)), "")
	}
	return assertion(false, "", fmt.Sprintf("Duration %sms > %sms threshold", jsNumber(d), jsNumber(limit)))
}

// cost passes when the target's cost is within `budget` USD.
func cost(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, budget float64) verdict {
	t := r.in.Trace
	if t == nil || t.CostUSD == nil {
		return assertion(false, "", "No cost data available in trace")
	}
	c := *t.CostUSD
	if c <= budget {
		return assertion(true, fmt.Sprintf("Cost $%s <= $%s budget", jsFixed(c, 4), jsFixed(budget, 4)), "")
	}
	return assertion(false, "", fmt.Sprintf("Cost $%s > $%s budget", jsFixed(c, 4), jsFixed(budget, 4)))
}

type tokenLimit struct {
	name string // input, output or total
	max  float64
}

// parseTokenLimits reads max_input, max_output and max_total (checked in that order); one at
// least is needed.
func parseTokenLimits(spec *suite.EvaluatorSpec) ([]tokenLimit, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	var limits []tokenLimit
	for _, k := range [][2]string{{"max_input", "maxInput"}, {"max_output", "maxOutput"}, {"max_total", "maxTotal"}} {
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
		return assertion(false, "", "No token usage data available in trace")
	}
	u := t.TokenUsage
	used := map[string]float64{"input": float64(u.Input), "output": float64(u.Output), "total": float64(u.Input + u.Output)}
	if u.Cached != nil {
		used["total"] += float64(*u.Cached)
	}
	label := map[string]string{"input": "Input", "output": "Output", "total": "Total"}
	v := verdict{score: 1, hits: []string{}, misses: []string{}}
	var parts []string
	for _, l := range limits {
		n := used[l.name]
		if n <= l.max {
			text := fmt.Sprintf("%s tokens %s <= %s", label[l.name], jsNumber(n), jsNumber(l.max))
			v.hits = append(v.hits, text)
			parts = append(parts, text)
		} else {
			text := fmt.Sprintf("%s tokens %s > %s", label[l.name], jsNumber(n), jsNumber(l.max))
			v.score = 0
			v.misses = append(v.misses, text)
			parts = append(parts, text)
		}
	}
	v.reasoning = strings.Join(parts, "; ")
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
