package evaluators

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

func init() {
	register("latency", nil, nil, limitParser("latency needs `threshold` (milliseconds)", "threshold", "max_duration_ms", "maxDurationMs"),
		atMost("No duration data available in trace", func(t *results.TraceSummary) *float64 { return t.DurationMS },
			func(f float64) string { return jsNumber(f) + "ms" }, "Duration %s %s %s threshold"))
	register("cost", nil, nil, limitParser("cost needs `budget` (USD)", "budget", "max_cost_usd", "maxCostUsd"),
		atMost("No cost data available in trace", func(t *results.TraceSummary) *float64 { return t.CostUSD },
			func(f float64) string { return "$" + jsFixed(f, 4) }, "Cost %s %s %s budget"))
	register("token_usage", nil, nil, parseTokenLimits, tokenUsage)
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

// atMost is an evaluator that passes when the trace's measure is within the limit; text words
// the check (measure, operator, limit, each formatted). The texts are AgentV's (the same in 2.5
// and 4.x).
func atMost(missing string, measure func(*results.TraceSummary) *float64, format func(float64) string,
	text string) func(context.Context, *caseRun, *suite.EvaluatorSpec, float64) verdict {
	return func(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, limit float64) verdict {
		var got *float64
		if r.in.Trace != nil {
			got = measure(r.in.Trace)
		}
		switch {
		case got == nil:
			return assertion(false, "", missing)
		case *got <= limit:
			return assertion(true, fmt.Sprintf(text, format(*got), "<=", format(limit)), "")
		}
		return assertion(false, "", fmt.Sprintf(text, format(*got), ">", format(limit)))
	}
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
	var c checklist
	for _, l := range limits {
		n := used[l.name]
		op := map[bool]string{true: "<=", false: ">"}[n <= l.max]
		c.check(n <= l.max, "%s tokens %s %s %s", label[l.name], jsNumber(n), op, jsNumber(l.max))
	}
	return c.verdict(b2f(len(c.v.misses) == 0))
}

// checklist gathers an evaluator's checks: passed ones are hits, failed ones misses, and all of
// them, in order, its reasoning.
type checklist struct {
	v     verdict
	texts []string
}

func (c *checklist) check(ok bool, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	c.texts = append(c.texts, text)
	if ok {
		c.v.hits = append(c.v.hits, text)
	} else {
		c.v.misses = append(c.v.misses, text)
	}
}

// verdict is the checks with score.
func (c *checklist) verdict(score float64) verdict {
	c.v.score, c.v.reasoning = score, strings.Join(c.texts, "; ")
	if c.v.hits == nil {
		c.v.hits = []string{}
	}
	if c.v.misses == nil {
		c.v.misses = []string{}
	}
	return c.v
}
