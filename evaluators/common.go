package evaluators

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// DefaultThreshold is the score a case passes at, and so the minimum a `required` evaluator
// without `min_score` must reach, when Options.Threshold is not set.
const DefaultThreshold = 0.8

// commonKeys are the settings AgentV 4.x accepts on every evaluator entry besides name, type
// and weight. They act on the entry's result in the case's own list (a composite's members
// are scored by the composite and ignore them, as in AgentV 4.42.4).
type commonKeys struct {
	negate   bool    // the score becomes 1 - score, hits and misses swap
	required bool    // below minScore, the whole case scores 0
	minScore float64 // 0: the case threshold
}

// configTypes are the types whose common keys are the judge's own config unless the loader
// says otherwise (EvaluatorSpec.JudgeCommonKeys).
var configTypes = map[string]bool{suite.TypeCodeJudge: true, suite.TypeLLMJudge: true}

// parseCommon reads `negate`, `required` (true, false or a minimum score) and `min_score`
// (which wins over a numeric `required`). AgentV 4.42.4 silently ignores values it cannot
// use (`required: 2`, `min_score: 0`, `negate: "yes"`); here they are errors, since the
// author asked for a gate that would otherwise not be there.
func parseCommon(spec *suite.EvaluatorSpec) (commonKeys, error) {
	var c commonKeys
	if isNull(spec.Settings) || configTypes[spec.Type] && !spec.JudgeCommonKeys {
		return c, nil
	}
	s, err := settingsOf(spec)
	if err != nil {
		return c, err
	}
	var errs []error
	if v, _ := s.raw("negate"); v != nil {
		if json.Unmarshal(v, &c.negate) != nil {
			errs = append(errs, settingErr("negate", "must be true or false, got %s", v))
		}
	}
	if v, _ := s.raw("required"); v != nil {
		if json.Unmarshal(v, &c.required) != nil {
			f, ok := unitScore(v)
			if !ok {
				errs = append(errs, settingErr("required", "must be true, false or a minimum score above 0 and at most 1, got %s", v))
			}
			c.required, c.minScore = ok, f
		}
	}
	if v, _ := s.raw("min_score"); v != nil {
		f, ok := unitScore(v)
		if !ok {
			errs = append(errs, settingErr("min_score", "must be a score above 0 and at most 1, got %s", v))
		}
		c.minScore = f
	}
	return c, errors.Join(errs...)
}

// unitScore reads a number in (0, 1].
func unitScore(v json.RawMessage) (float64, bool) {
	var f float64
	if json.Unmarshal(v, &f) != nil || !(f > 0 && f <= 1) {
		return 0, false
	}
	return f, true
}

// commonOf returns a spec's common keys: parsed at load time, or now for a spec built in code
// (bad ones count as none: its evaluator reports them).
func commonOf(spec *suite.EvaluatorSpec) commonKeys {
	if p, ok := spec.Parsed.(*parsedEntry); ok {
		return p.common
	}
	c, _ := parseCommon(spec)
	return c
}

// verdictOf is an evaluator's verdict for a score: pass or fail, else the 2.5 bands.
func verdictOf(passFail bool, score float64) string {
	if passFail {
		return results.PassFail(score)
	}
	return results.Band(score)
}

// negateResult inverts a scored result. One that could not score stays an error with score
// 0: AgentV 4.42.4 negates its fallback 0 into a pass, which would let a broken evaluator
// pass a case. A 4.x verdict is swapped (pass and fail) rather than derived from the new
// score, as 4.42.4's negateScore does (graders/scoring.ts): 0.7 (fail) negates to 0.3 (pass).
func negateResult(res *results.EvaluatorResult, passFail bool) {
	if res.Error != "" {
		return
	}
	res.Score = clamp01(1 - res.Score)
	res.Hits, res.Misses = res.Misses, res.Hits
	res.Assertions = slices.Clone(res.Assertions)
	for i := range res.Assertions {
		res.Assertions[i].Passed = !res.Assertions[i].Passed // a criterion met now fails the entry
	}
	if !passFail {
		res.Verdict = results.Band(res.Score)
		return
	}
	switch res.Verdict {
	case results.BandPass:
		res.Verdict = results.BandFail
	case results.BandFail:
		res.Verdict = results.BandPass
	}
}

// requiredGate scores the case 0 when a required evaluator is below its minimum (its own
// min_score, else the case threshold), and says so in the misses.
func requiredGate(out *Outcome, common []commonKeys, threshold float64) {
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	for i, res := range out.Results {
		minimum := cmp.Or(common[i].minScore, threshold)
		if common[i].required && res.Score < minimum {
			out.Score = 0
			out.Misses = append(out.Misses, fmt.Sprintf("required evaluator %q scored %.2f, below its minimum %.2f: the case scores 0", res.Name, res.Score, minimum))
		}
	}
}
