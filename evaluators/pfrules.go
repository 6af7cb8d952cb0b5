package evaluators

import (
	"github.com/agentv/action/results"
)

// promptfoo's scoring rules (suite.GradingRules: ScoresAsReturned, ZeroWeightPasses,
// NegateScriptVerdict, VerdictOfResults), read where a result or an outcome is settled.

// scriptTypes are the types whose not- flips only the verdict under NegateScriptVerdict
// (promptfoo: handleJavascript and handlePython invert `pass`, not the score).
var scriptTypes = map[string]bool{"javascript": true, "python": true}

// negate applies an entry's negation to its result under the case's rules.
func (r *caseRun) negate(res *results.EvaluatorResult) {
	if r.rules.NegateScriptVerdict && scriptTypes[res.Type] && res.Error == "" {
		switch res.Verdict {
		case results.BandPass:
			res.Verdict = results.BandFail
		case results.BandFail:
			res.Verdict = results.BandPass
		}
		return
	}
	negateResult(res, r.rules.PassFail)
}

// zeroWeight reports a weight-0 result as passing under ZeroWeightPasses (promptfoo:
// runAssertionInternal, after the handler); an assert-set keeps its own verdict.
func (r *caseRun) zeroWeight(res *results.EvaluatorResult) {
	if r.rules.ZeroWeightPasses && res.Weight == 0 && res.Type != "assert-set" && res.Error == "" {
		res.Verdict = results.BandPass
	}
}

// scoreOf is a verdict's score as the result keeps it: in [0, 1], or as the grader returned
// it under ScoresAsReturned.
func (r *caseRun) scoreOf(v verdict) float64 {
	if r.rules.ScoresAsReturned && v.returned != nil && v.err == nil {
		return *v.returned
	}
	return clamp01(v.score)
}

// verdictOfResults sets out.Passed under VerdictOfResults for a case without its own
// threshold: it passes only when every result passed (promptfoo: AssertionsResult.testResult).
func verdictOfResults(out *Outcome, hasThreshold bool) {
	if hasThreshold {
		return
	}
	passed := true
	for _, res := range out.Results {
		if res.Verdict != results.BandPass {
			passed = false
		}
	}
	out.Passed = &passed
}

// meanAsReturned is the weighted mean of the results, unclamped (promptfoo keeps a mean
// above 1 or below 0), 0 when their weights add up to 0.
func meanAsReturned(rs []results.EvaluatorResult) float64 {
	var sum, wsum float64
	for _, res := range rs {
		sum += res.Weight * res.Score
		wsum += res.Weight
	}
	if wsum == 0 {
		return 0
	}
	return sum / wsum
}

// noGraders is the outcome of a case without graders under NoGradersPass: score 1, passed
// (promptfoo: AssertionsResult.noAssertsResult).
func noGraders() *Outcome {
	passed := true
	return &Outcome{Score: 1, Hits: []string{}, Misses: []string{}, Results: []results.EvaluatorResult{}, Passed: &passed}
}
