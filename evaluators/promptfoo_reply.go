package evaluators

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// AgentV 5.x reads a judge's reply the promptfoo way when it has `pass` or `reason`, or
// `checks` without 4.x's `overall_reasoning` and `assertions` (graders/llm-grader.ts:252-415
// at v5.3.1-next.1): the verdict is the reply's `pass` (with the entry's threshold), the score
// its `score`, each else derived from the other or from the checks. Other replies are read as
// 4.x reads them. GradingRules.PromptfooReplies turns this on.

// promptfooTrue are the texts a `pass` that is not a boolean passes with.
var promptfooTrue = regexp.MustCompile(`(?i)^(true|yes|pass|y)$`)

// promptfooShaped reports whether a reply object is promptfoo's grading result.
func promptfooShaped(m map[string]json.RawMessage) bool {
	_, pass := m["pass"]
	_, reason := m["reason"]
	_, checks := m["checks"]
	_, overall := m["overall_reasoning"]
	_, asserts := m["assertions"]
	return pass || reason || checks && !overall && !asserts
}

// withPromptfoo wraps a 4.x reply reader: a promptfoo-shaped reply is read by readPromptfoo.
func withPromptfoo(read func(string) (verdict, error), spec *suite.EvaluatorSpec, set *rubricSet, fallback string) func(string) (verdict, error) {
	return func(reply string) (verdict, error) {
		m, err := v4ReplyObject(reply)
		if err != nil || !promptfooShaped(m) {
			return read(reply)
		}
		return readPromptfoo(m, promptfooThreshold(spec), set, fallback)
	}
}

// promptfooThreshold is the score a promptfoo verdict also needs: the entry's
// `config.threshold` (an llm-rubric's `threshold` lands there), else its `min_score`.
func promptfooThreshold(spec *suite.EvaluatorSpec) *float64 {
	for _, src := range []struct {
		raw json.RawMessage
		key string
	}{{spec.Config, "threshold"}, {spec.Settings, "min_score"}} {
		var m map[string]json.RawMessage
		if json.Unmarshal(src.raw, &m) != nil {
			continue
		}
		var f float64
		if raw, ok := m[src.key]; ok && json.Unmarshal(raw, &f) == nil && !math.IsInf(f, 0) {
			return &f
		}
	}
	return nil
}

// promptfooCheck is one item of a reply's `checks`.
type promptfooCheck struct {
	ID, Text                  *string
	Pass, Passed, Satisfied   json.RawMessage
	Score                     json.RawMessage
	Reason, Evidence, Reasons *string
}

// readPromptfoo scores a promptfoo-shaped reply. A field of the wrong kind is an error, so the
// judge is asked again as for any reply that does not parse.
func readPromptfoo(m map[string]json.RawMessage, threshold *float64, set *rubricSet, fallback string) (verdict, error) {
	var reason *string
	if err := optionalString(m, "reason", &reason); err != nil {
		return verdict{}, err
	}
	passRaw, scoreRaw := m["pass"], m["score"]
	for key, raw := range map[string]json.RawMessage{"pass": passRaw, "score": scoreRaw} {
		if raw != nil && !scalarJSON(raw) {
			return verdict{}, fmt.Errorf("%s: must be a boolean, string or number", key)
		}
	}
	var checks []promptfooCheck
	if raw, ok := m["checks"]; ok {
		var err error
		if checks, err = parsePromptfooChecks(raw); err != nil {
			return verdict{}, err
		}
	}
	outcomes := map[string]string{}
	if set != nil {
		for _, it := range set.items {
			outcomes[it.id] = it.outcome
		}
	}
	type check struct {
		pass     bool
		score    float64
		hasScore bool
		text     string
		reason   string
	}
	norm := make([]check, 0, len(checks))
	for _, c := range checks {
		var n check
		switch raw := firstRaw(c.Pass, c.Passed, c.Satisfied); {
		case raw != nil:
			n.pass = promptfooPass(raw)
		case c.Score != nil:
			n.pass = promptfooScore(c.Score, false) >= 0.8
		}
		if c.Score != nil {
			n.score, n.hasScore = promptfooScore(c.Score, n.pass), true
		}
		switch {
		case c.ID != nil && outcomes[*c.ID] != "":
			n.text = "[" + *c.ID + "] " + outcomes[*c.ID]
		case c.Text != nil && strings.TrimSpace(*c.Text) != "":
			n.text = strings.TrimSpace(*c.Text)
		case c.ID != nil && strings.TrimSpace(*c.ID) != "":
			n.text = "[" + *c.ID + "]"
		default:
			n.text = "llm-rubric check"
		}
		for _, r := range []*string{c.Reason, c.Evidence, c.Reasons} {
			if r != nil {
				n.reason = *r
				break
			}
		}
		norm = append(norm, n)
	}

	rawPass := true
	switch {
	case passRaw != nil:
		rawPass = promptfooPass(passRaw)
	case len(norm) > 0:
		for _, c := range norm {
			rawPass = rawPass && c.pass
		}
	}
	var score float64
	switch {
	case scoreRaw != nil:
		score = promptfooScore(scoreRaw, rawPass)
	case len(norm) > 0:
		for _, c := range norm {
			if c.hasScore {
				score += c.score
			} else {
				score += b2f(c.pass)
			}
		}
		score /= float64(len(norm))
	default:
		score = b2f(rawPass)
	}
	pass := rawPass && (threshold == nil || score >= *threshold)
	why := ""
	if reason != nil {
		why = strings.TrimSpace(*reason)
	}
	if why == "" {
		switch {
		case pass:
			why = "Grading passed"
		case threshold != nil && score < *threshold:
			why = fmt.Sprintf("Score %s below threshold %s", jsNumber(score), jsNumber(*threshold))
		default:
			why = "Grading failed"
		}
	}

	v := verdict{score: score, hits: []string{}, misses: []string{}, reasoning: why}
	v.forcePass, v.forceFail = pass, !pass
	if len(norm) == 0 {
		norm = []check{{pass: pass, text: cmp.Or(strings.TrimSpace(fallback), "llm-rubric result"), reason: why}}
	}
	for _, c := range norm {
		if c.pass {
			v.hits = append(v.hits, c.text)
		} else {
			v.misses = append(v.misses, c.text)
		}
		v.assertions = append(v.assertions, results.Assertion{Text: c.text, Passed: c.pass, Evidence: c.reason})
	}
	details := map[string]any{"pass": pass, "score": score, "reason": why}
	if threshold != nil {
		details["threshold"] = *threshold
	}
	v.details, _ = json.Marshal(details)
	return v, nil
}

// parsePromptfooChecks reads `checks`: a list of objects whose known fields have promptfoo's
// kinds (other fields are allowed and ignored).
func parsePromptfooChecks(raw json.RawMessage) ([]promptfooCheck, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("checks: must be a list of objects")
	}
	out := make([]promptfooCheck, 0, len(items))
	for i, it := range items {
		if it == nil {
			return nil, fmt.Errorf("checks[%d]: must be an object", i)
		}
		var c promptfooCheck
		for key, dst := range map[string]**string{"id": &c.ID, "text": &c.Text, "reason": &c.Reason, "evidence": &c.Evidence, "reasoning": &c.Reasons} {
			if err := optionalString(it, key, dst); err != nil {
				return nil, fmt.Errorf("checks[%d].%w", i, err)
			}
		}
		for key, dst := range map[string]*json.RawMessage{"pass": &c.Pass, "passed": &c.Passed, "satisfied": &c.Satisfied, "score": &c.Score} {
			if v, ok := it[key]; ok {
				if !scalarJSON(v) {
					return nil, fmt.Errorf("checks[%d].%s: must be a boolean, string or number", i, key)
				}
				*dst = v
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// optionalString reads key as a string into dst; absent leaves dst nil.
func optionalString(m map[string]json.RawMessage, key string, dst **string) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return fmt.Errorf("%s: must be a string", key)
	}
	*dst = &s
	return nil
}

// scalarJSON reports whether raw is a boolean, string or number (not null).
func scalarJSON(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case bool, string, float64:
		return true
	}
	return false
}

// promptfooPass reads a `pass`: a boolean as it is, else its text is one of true, yes, pass,
// y (any case); a number's text never is.
func promptfooPass(raw json.RawMessage) bool {
	var v any
	_ = json.Unmarshal(raw, &v)
	switch t := v.(type) {
	case bool:
		return t
	case string:
		return promptfooTrue.MatchString(t)
	}
	return promptfooTrue.MatchString(strings.TrimSpace(string(raw)))
}

// promptfooScore reads a `score` as JavaScript's Number() does, clamped to 0–1: a boolean is
// 1 or 0, blank text 0, other text its number; text that is no number scores as pass does.
func promptfooScore(raw json.RawMessage, pass bool) float64 {
	var v any
	_ = json.Unmarshal(raw, &v)
	f := b2f(pass)
	switch t := v.(type) {
	case float64:
		f = t
	case bool:
		f = b2f(t)
	case string:
		if s := strings.TrimSpace(t); s == "" {
			f = 0
		} else if n, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(n, 0) {
			f = n
		}
	}
	return clamp01(f)
}

// firstRaw returns the first value that is there.
func firstRaw(vals ...json.RawMessage) json.RawMessage {
	for _, v := range vals {
		if v != nil {
			return v
		}
	}
	return nil
}
