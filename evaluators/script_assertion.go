package evaluators

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// AgentV 5.x's javascript, python and webhook assertions (graders/promptfoo-assertions.ts)
// share their settings, the context they hand the user's code, and how they read its
// result: this file holds those three parts.

// scriptAssertionKeys are the settings of javascript, python and webhook entries (besides
// those of every entry); metric and transform are 5.x keys the front-end reads.
var scriptAssertionKeys = []string{"value", "threshold", "metric", "transform"}

// scriptAssertion is a javascript, python or webhook entry's settings.
type scriptAssertion struct {
	value     string          // code, a file:// reference, or the webhook's URL
	threshold *float64        // the pass mark of a numeric score; nil: any score above 0
	config    json.RawMessage // the entry's `config`, handed to the code as context.config
}

// parseScriptAssertion reads `value` (a non-blank string), `threshold` (0 to 1) and `config`
// (a mapping). 5.x skips an entry without value and drops a threshold outside 0..1
// (loaders/grader-parser.ts:1421-1431) with a warning; here both are errors, since the
// author's check would silently not run.
func parseScriptAssertion(spec *suite.EvaluatorSpec, what string) (*scriptAssertion, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &scriptAssertion{}
	var errs []error
	raw, _ := s.raw("value")
	switch {
	case raw == nil:
		errs = append(errs, fmt.Errorf("%s needs `value`: %s", spec.Type, what))
	case json.Unmarshal(raw, &cfg.value) != nil:
		errs = append(errs, settingErr("value", "must be a string (%s), got %s", what, kindOf(raw)))
	case strings.TrimSpace(cfg.value) == "":
		errs = append(errs, settingErr("value", "must not be empty: %s", what))
	}
	if t, err := unitThreshold(s); err != nil {
		errs = append(errs, err)
	} else {
		cfg.threshold = t
	}
	if raw, _ := s.raw("config"); raw != nil {
		if jsonKind(raw) != "object" {
			errs = append(errs, settingErr("config", "must be a mapping, got %s", kindOf(raw)))
		}
		cfg.config = raw
	}
	return cfg, errors.Join(errs...)
}

// unitThreshold reads an optional `threshold` from 0 to 1.
func unitThreshold(s settings) (*float64, error) {
	raw, _ := s.raw("threshold")
	if raw == nil {
		return nil, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f < 0 || f > 1 {
		return nil, settingErr("threshold", "must be a number from 0 to 1, got %s", kindOf(raw))
	}
	return &f, nil
}

// assertionContext is the `context` 5.x hands an assertion's code (buildAssertionContext in
// promptfoo-assertions.ts): the case's criteria, expected output, input, metadata, trace and
// measures, and the entry's config when it has one. camel names the keys as JavaScript gets
// them (expectedOutput, tokenUsage, …); Python and webhooks get snake_case. The values are
// those 4.x-style code graders get, so a nested object's keys are snake_case either way.
// Under GradingRules.ContextVars (promptfoo) it also holds the test's vars, as written.
func (r *caseRun) assertionContext(config json.RawMessage, camel bool) (json.RawMessage, error) {
	raw, err := r.data.v4Payload(v4PayloadOpts{})
	if err != nil {
		return nil, err
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	null := json.RawMessage("null")
	or := func(v json.RawMessage) json.RawMessage {
		if len(v) == 0 {
			return null
		}
		return v
	}
	fields := []struct{ snake, camel string }{
		{"criteria", "criteria"}, {"expected_output", "expectedOutput"}, {"input", "input"},
		{"metadata", "metadata"}, {"trace", "trace"}, {"token_usage", "tokenUsage"},
		{"cost_usd", "costUsd"}, {"duration_ms", "durationMs"}, {"file_changes", "fileChanges"},
		{"workspace_path", "workspacePath"}, {"dependency_results", "dependencyResults"},
	}
	var out []jsonField
	for _, f := range fields {
		key := f.snake
		if camel {
			key = f.camel
		}
		out = append(out, jsonField{key, or(p[f.snake])})
	}
	if r.rules.ContextVars {
		// promptfoo's context.vars: the test's vars after the defaults, {} for none.
		vars := json.RawMessage("{}")
		if c := r.in.Case; c != nil && len(c.Vars) > 0 {
			vars = c.Vars
		}
		out = append(out, jsonField{"vars", vars})
	}
	if !isNull(config) {
		out = append(out, jsonField{"config", config})
	}
	return objectJSON(out), nil
}

// objectJSON renders fields as one JSON object, in order.
func objectJSON(fs []jsonField) json.RawMessage {
	b := []byte{'{'}
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := jsonx.Marshal(f.key)
		b = append(append(append(b, k...), ':'), f.val...)
	}
	return append(b, '}')
}

type jsonField struct {
	key string
	val json.RawMessage
}

// scriptResult reads what an assertion's code returned (raw JSON; nil for JavaScript's
// undefined) as 5.x's normalizeScriptResult does (promptfoo-assertions.ts:47-100): true or
// false scores 1 or 0; a number is the score, passing at `threshold` (default: any score
// above 0); an object gives `score` (else 1 for pass: true, else 0), `pass` (else the score
// against the threshold), `reason`, `assertions` and `details`. Anything else scores 0.
// label names the assertion in its texts ("Javascript assertion").
func scriptResult(raw json.RawMessage, label string, threshold *float64) verdict {
	fallback := label + " returned a failing result"
	mark := math.SmallestNonzeroFloat64 // 5.x: Number.EPSILON, the same for scores from JSON
	if threshold != nil {
		mark = *threshold
	}
	var score float64
	var passed bool
	var as []v4Assertion
	var reason string
	var hasReason bool
	var details json.RawMessage
	var returned *float64 // the score before clamping
	switch jsonKind(raw) {
	case "null":
		// 5.x reads `.score` of it and fails with the TypeError.
		return failedScript(label, "it returned null or undefined; return true or false, a score from 0 to 1, or an object with pass and score")
	case "boolean":
		passed = string(raw) == "true"
		score = b2f(passed)
	case "number":
		var f float64
		_ = json.Unmarshal(raw, &f)
		score = clamp01(f)
		passed = score >= mark
		returned = &f
	default:
		var obj struct {
			Score      json.RawMessage   `json:"score"`
			Pass       json.RawMessage   `json:"pass"`
			Reason     json.RawMessage   `json:"reason"`
			Assertions []json.RawMessage `json:"assertions"`
			Details    json.RawMessage   `json:"details"`
		}
		_ = json.Unmarshal(raw, &obj) // a string or a list has none of these
		switch {
		case jsonKind(obj.Score) == "number":
			f, _ := parseScoreRaw(obj.Score)
			score = clamp01(f)
			returned = &f
		case string(obj.Pass) == "true":
			score = 1
		}
		if isNull(obj.Pass) {
			passed = score >= mark
		} else {
			passed = jsTruthy(obj.Pass) // `pass ?? …`: any value that is there decides
		}
		hasReason = json.Unmarshal(obj.Reason, &reason) == nil && !isNull(obj.Reason)
		for _, item := range obj.Assertions {
			var a struct {
				Text   json.RawMessage `json:"text"`
				Passed json.RawMessage `json:"passed"`
			}
			if json.Unmarshal(item, &a) != nil {
				continue
			}
			text := ""
			if json.Unmarshal(a.Text, &text) != nil {
				text = outputText(a.Text)
			}
			as = append(as, v4Assertion{Text: text, Passed: jsTruthy(a.Passed)})
		}
		if jsonKind(obj.Details) == "object" {
			details, _ = jsonx.AppendCompact(nil, obj.Details)
		}
	}
	if len(as) == 0 {
		text := fallback
		switch {
		case hasReason:
			text = reason
		case passed:
			text = "Assertion passed"
		}
		as = []v4Assertion{{Text: text, Passed: passed}}
	}
	v := v4Verdict(score, as)
	v.reasoning = reason
	v.details = details
	v.forcePass, v.forceFail = passed, !passed
	v.returned = returned
	return v
}

// failedScript is the verdict of an assertion whose code failed (threw, exited with an error,
// printed no result): 5.x scores it 0 and fails it with the message (promptfoo-assertions.ts,
// the catch of each grader), and so does this; it is not an error of the run.
func failedScript(label, msg string) verdict {
	text := label + " failed: " + msg
	return verdict{hits: []string{}, misses: []string{text}, reasoning: text, forceFail: true,
		assertions: []results.Assertion{{Text: text}}}
}
