package evaluators

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/results"
)

// promptfoo's scoring rules (suite.GradingRules: ScoresAsReturned, ZeroWeightPasses,
// NegateScriptVerdict, VerdictOfResults), read where a result or an outcome is settled.

// scriptTypes are the types whose not- flips only the verdict under NegateScriptVerdict
// (promptfoo: handleJavascript and handlePython invert `pass`, not the score).
var scriptTypes = map[string]bool{"javascript": true, "python": true}

// negate applies an entry's negation to its result under the case's rules: a script's number
// or object keeps its score under NegateScriptVerdict; its true or false is negated as any
// pass/fail result is (promptfoo scores it by the flipped verdict).
func (r *caseRun) negate(res *results.EvaluatorResult) {
	if r.rules.NegateScriptVerdict && scriptTypes[res.Type] && res.Error == "" && r.returned {
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

// pfRubricSystem asks an llm-rubric grader for promptfoo's verdict shape (our wording).
const pfRubricSystem = `You check an answer against a rubric. Reply with one JSON object and nothing else:
{"reason": "<why, in a sentence or two>", "pass": <true if the answer meets the rubric, else false>, "score": <number from 0.0 to 1.0>}`

// pfRubricReader reads an llm-rubric verdict as promptfoo does (graders.js,
// runJsonGradingPrompt): the first JSON object of the reply; `pass` defaults to true (other
// than a boolean, it passes only as the text true, yes, pass or y), `score` is read as
// JavaScript's Number() reads it, else 1 or 0 by pass, and is kept as given (1.5 stays); with
// the assertion's own threshold, pass = pass and score >= threshold. A reply without an object
// is the grader's error, which GradingRules.GraderErrorFails makes a failing assertion.
func pfRubricReader(threshold *float64) func(string) (verdict, error) {
	return func(reply string) (verdict, error) {
		obj, ok := firstJSONObject(reply)
		if !ok {
			return verdict{err: fmt.Errorf("the grader's reply holds no JSON verdict: %s", proc.Excerpt(reply, 200))}, nil
		}
		pass := true
		if raw, ok := obj["pass"]; ok && !isNull(raw) {
			pass = promptfooPass(raw)
		}
		score, ok := jsNumberOf(obj["score"])
		if !ok {
			score = b2f(pass)
		}
		if threshold != nil {
			pass = pass && score >= *threshold
		}
		var reason string
		_ = json.Unmarshal(obj["reason"], &reason)
		text := cmp.Or(reason, map[bool]string{true: "The grader passed the answer", false: "The grader failed the answer"}[pass])
		v := v4Verdict(clamp01(score), []v4Assertion{{Text: text, Passed: pass}})
		v.reasoning = reason
		v.returned = &score
		v.forcePass, v.forceFail = pass, !pass
		return v, nil
	}
}

// jsNumberOf is JavaScript's Number() of a JSON value when it is finite: a number, a boolean
// (1, 0), null (0), a string (blank 0, else its decimal number); false when absent or NaN.
func jsNumberOf(raw json.RawMessage) (float64, bool) {
	if raw == nil {
		return 0, false // undefined: NaN
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	switch t := v.(type) {
	case nil:
		return 0, true
	case float64:
		return t, true
	case bool:
		return b2f(t), true
	case string:
		s := jsTrim(t)
		if s == "" {
			return 0, true
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(s, "_xXpP") || strings.EqualFold(strings.TrimLeft(s, "+-"), "inf") || strings.EqualFold(strings.TrimLeft(s, "+-"), "infinity") {
			return 0, false
		}
		return f, true
	}
	return 0, false // an object or array: taken as NaN
}

// firstJSONObject is the first JSON object in text, scanning from each `{`.
func firstJSONObject(text string) (map[string]json.RawMessage, bool) {
	for i := strings.IndexByte(text, '{'); i >= 0; {
		var obj map[string]json.RawMessage
		if json.NewDecoder(strings.NewReader(text[i:])).Decode(&obj) == nil && obj != nil {
			return obj, true
		}
		next := strings.IndexByte(text[i+1:], '{')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return nil, false
}

// pythonThreshold fails a python object whose score is below the assertion's threshold under
// GradingRules.PythonObjectThreshold (promptfoo: normalizeScriptAssertionResult); a
// javascript object, and 5.x's, keep their own pass.
func (r *caseRun) pythonThreshold(v verdict, raw json.RawMessage, threshold *float64) verdict {
	if r.rules.PythonObjectThreshold && threshold != nil && jsonKind(raw) == "object" && v.returned != nil && *v.returned < *threshold {
		v.forcePass, v.forceFail = false, true
	}
	return v
}
