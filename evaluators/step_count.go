package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentv/action/suite"
)

// trajectory:step-count (AgentV 5.x, graders/trajectory.ts:623-679) counts the steps of the
// trajectory that match {type, name | pattern} and passes when the count is within
// [min, max]. Its not- form, or negate: true, passes when the count is outside.
func init() {
	registerStepCount("trajectory:step-count", false)
	registerStepCount("not-trajectory:step-count", true)
}

// stepCount is a parsed step-count value.
type stepCount struct {
	types    []string // step types the count takes; empty: every type
	pattern  string   // a glob over the step's names; "" matches every step
	min, max *float64
}

func registerStepCount(name string, inverse bool) {
	suite.RegisterEvaluator(suite.EvaluatorType{Name: name, Keys: []string{"value", "metric", "transform"},
		Parse: func(spec *suite.EvaluatorSpec) (any, error) {
			common, cerr := parseCommon(spec)
			sc, err := parseStepCount(spec)
			if err = errors.Join(cerr, err); err != nil {
				return nil, err
			}
			inv := inverse != common.negate // as the other trajectory types: negate is the inverse
			common.negate = false
			return &parsedEntry{common: common, run: func(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec) verdict {
				return passFail(sc.check(traceSteps(r), inv))
			}}, nil
		}})
}

// parseStepCount reads `value`: {type (a step type or a list), name or pattern, min, max}; min
// or max is needed. As in 5.x, a min or max that is not a number is not read.
func parseStepCount(spec *suite.EvaluatorSpec) (*stepCount, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	raw, _ := s.raw("value")
	var v struct {
		Type    json.RawMessage `json:"type"`
		Name    *string         `json:"name"`
		Pattern *string         `json:"pattern"`
		Min     json.RawMessage `json:"min"`
		Max     json.RawMessage `json:"max"`
	}
	if raw == nil || !isObject(raw) || json.Unmarshal(raw, &v) != nil {
		return nil, settingErr("value", "must be an object {type, name or pattern, min, max}")
	}
	sc := &stepCount{}
	if !isNull(v.Type) {
		var one string
		if json.Unmarshal(v.Type, &one) == nil {
			sc.types = []string{one}
		} else if json.Unmarshal(v.Type, &sc.types) != nil {
			return nil, settingErr("value.type", "must be a step type (tool, command, message, reasoning, search, span) or a list of them")
		}
	}
	switch {
	case v.Pattern != nil:
		sc.pattern = *v.Pattern
	case v.Name != nil:
		sc.pattern = *v.Name
	}
	for _, b := range []struct {
		raw json.RawMessage
		dst **float64
	}{{v.Min, &sc.min}, {v.Max, &sc.max}} {
		var f float64
		if !isNull(b.raw) && json.Unmarshal(b.raw, &f) == nil {
			*b.dst = &f
		}
	}
	if sc.min == nil && sc.max == nil {
		return nil, settingErr("value", "needs a number `min` or `max`")
	}
	return sc, nil
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// check counts the matching steps; the reason words it as 5.x does.
func (sc *stepCount) check(steps []traceStep, inverse bool) (bool, string) {
	var matched []string
	for _, s := range steps {
		if matchStep(s, sc.types, sc.pattern) {
			matched = append(matched, s.typ+":"+s.name)
		}
	}
	n := float64(len(matched))
	pass := (sc.min == nil || n >= *sc.min) && (sc.max == nil || n <= *sc.max)
	if inverse {
		if pass {
			return false, "Trajectory step count satisfied the forbidden range"
		}
		return true, "Trajectory step count did not satisfy the forbidden range"
	}
	reason := fmt.Sprintf("Matched %d trajectory step(s)", len(matched))
	var filter []string
	if len(sc.types) > 0 {
		filter = append(filter, "type="+strings.Join(sc.types, "|"))
	}
	if sc.pattern != "" {
		filter = append(filter, "pattern="+sc.pattern)
	}
	if len(filter) > 0 {
		reason += " for " + strings.Join(filter, ", ")
	}
	switch {
	case sc.min != nil && sc.max != nil:
		reason += fmt.Sprintf(" (expected %s-%s)", jsNumber(*sc.min), jsNumber(*sc.max))
	case sc.min != nil:
		reason += " (expected at least " + jsNumber(*sc.min) + ")"
	default:
		reason += " (expected at most " + jsNumber(*sc.max) + ")"
	}
	if len(matched) > 0 {
		reason += ". Matches: " + strings.Join(matched, ", ")
	}
	return pass, reason
}
