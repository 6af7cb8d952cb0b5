package evaluators

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentv/action/suite"
)

// Field match kinds of field_accuracy, as AgentV 2.5 names them.
const (
	matchExact   = "exact"
	matchNumeric = "numeric_tolerance"
	matchDate    = "date"
)

type faField struct {
	Path      string   `json:"path"`
	Match     string   `json:"match"`
	Required  *bool    `json:"required"`
	Weight    *float64 `json:"weight"`
	Tolerance float64  `json:"tolerance"`
	Relative  bool     `json:"relative"`
	Formats   []string `json:"formats"`
	steps     []pathStep
}

type faConfig struct {
	fields       []faField
	allOrNothing bool
}

func init() { register("field_accuracy", nil, nil, parseFieldAccuracy, fieldAccuracy) }

func parseFieldAccuracy(spec *suite.EvaluatorSpec) (*faConfig, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	cfg := &faConfig{}
	var fields []json.RawMessage
	if ok, err := s.decode(&fields, "fields"); err != nil {
		return nil, err
	} else if !ok || len(fields) == 0 {
		return nil, errors.New("field_accuracy needs `fields: [{path, match}]`")
	}
	var agg string
	if _, err := s.decode(&agg, "aggregation"); err != nil {
		return nil, err
	}
	switch agg {
	case "", "weighted_average":
	case "all_or_nothing":
		cfg.allOrNothing = true
	default:
		return nil, settingErr("aggregation", "unknown aggregation %q (want weighted_average or all_or_nothing)", agg)
	}
	cfg.fields = make([]faField, len(fields))
	for i, raw := range fields {
		f, at := &cfg.fields[i], fmt.Sprintf("fields[%d]", i)
		if err := decodeAt(raw, f, at); err != nil {
			return nil, err
		}
		if f.steps, err = parsePath(f.Path); err != nil {
			return nil, settingErr(at+".path", "%v", err)
		}
		switch f.Match {
		case "":
			f.Match = matchExact
		case matchExact, matchNumeric, matchDate:
		default:
			return nil, settingErr(at+".match", "unknown match %q (want exact, numeric_tolerance or date)", f.Match)
		}
		if f.Weight != nil && (*f.Weight < 0 || math.IsNaN(*f.Weight)) {
			return nil, settingErr(at+".weight", "must be >= 0")
		}
	}
	return cfg, nil
}

// fieldAccuracy compares fields of the candidate's JSON answer with the expected answer, as
// AgentV (2.5 and 4.x alike) does: a field without an expected value is a hit, a missing
// optional one a hit of weight 0, and the score is the weighted share of hits (0 when every
// weight is 0), or all-or-nothing.
func fieldAccuracy(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *faConfig) verdict {
	v := verdict{hits: []string{}, misses: []string{}}
	cand, ok := agentvJSON(r.in.Candidate)
	if !ok {
		v.misses = append(v.misses, "Failed to parse candidate answer as JSON")
		v.reasoning = "Candidate answer is not valid JSON"
		return v
	}
	expected := expectedObject(r.in.Case.Expected)
	if expected == nil {
		name := cmp.Or(r.rules.ExpectedName, "expected_messages")
		v.misses = append(v.misses, "No expected data found in "+name)
		v.reasoning = "Could not extract expected data from " + name
		return v
	}
	limit := maxVerdictItems
	if r.rules.AllItems {
		limit = len(cfg.fields)
	}
	var sum, wsum float64
	hits := 0
	for i := range cfg.fields {
		f := &cfg.fields[i]
		w := 1.0
		if f.Weight != nil {
			w = *f.Weight
		}
		want, haveWant := lookupPath(expected, f.steps)
		got, haveGot := lookupPath(cand, f.steps)
		var ok bool
		var note string
		switch {
		case !haveWant:
			ok, note = true, f.Path+": no expected value"
		case !haveGot && (f.Required == nil || *f.Required):
			ok, note = false, f.Path+" (required, missing)"
		case !haveGot:
			ok, note, w = true, f.Path+": optional field missing", 0
		default:
			ok, note = matchField(f, want, got)
		}
		sum += w * b2f(ok)
		wsum += w
		list := &v.misses
		if ok {
			hits++
			list = &v.hits
		}
		if len(*list) < limit {
			*list = append(*list, note)
		}
	}
	switch {
	case cfg.allOrNothing:
		v.score = b2f(hits == len(cfg.fields))
	case wsum > 0:
		v.score = sum / wsum
	}
	v.reasoning = fmt.Sprintf("%d/%d fields matched", hits, len(cfg.fields))
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// expectedObject is the content of the last assistant expected message with content that is
// structured or text holding JSON. nil when there is none.
func expectedObject(msgs []suite.Message) any {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != suite.RoleAssistant {
			continue
		}
		var v any
		switch m.Content.Kind {
		case suite.ContentStructured:
			if json.Unmarshal(m.Content.Structured, &v) == nil && v != nil {
				return v
			}
		case suite.ContentText:
			if v, ok := agentvJSON(m.Content.Text); ok && v != nil {
				return v
			}
		}
	}
	return nil
}

// AgentV's reading of JSON in model text (field-accuracy, 4.x's grader replies): code fences
// removed, then the text from the first "{" to the last "}" (so two objects side by side do
// not parse), with a "passed" field's non-boolean value read as a boolean ("true" is true).
var (
	jsonFence   = regexp.MustCompile("```json\\n?|```")
	jsonSpan    = regexp.MustCompile(`\{[\s\S]*\}`)
	passedField = regexp.MustCompile(`(?i)("passed"\s*:\s*)(?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_-]*))`)
)

// agentvJSONText is the JSON text AgentV reads from model text.
func agentvJSONText(text string) string {
	t := strings.TrimSpace(jsonFence.ReplaceAllString(text, ""))
	if span := jsonSpan.FindString(t); span != "" {
		t = span
	}
	return passedField.ReplaceAllStringFunc(t, func(m string) string {
		g := passedField.FindStringSubmatch(m)
		if strings.ToLower(strings.TrimSpace(g[2]+g[3])) == "true" {
			return g[1] + "true"
		}
		return g[1] + "false"
	})
}

// agentvJSON parses the JSON in text as AgentV does for field-accuracy.
func agentvJSON(text string) (any, bool) {
	var v any
	if json.Unmarshal([]byte(agentvJSONText(text)), &v) != nil {
		return nil, false
	}
	return v, true
}

// matchField compares one field; note is AgentV's text for the hit or miss.
func matchField(f *faField, want, got any) (bool, string) {
	switch f.Match {
	case matchNumeric:
		w, okW := jsParseFloat(want)
		g, okG := jsParseFloat(got)
		switch {
		case !okW || !okG:
			return false, f.Path + " (non-numeric value)"
		case math.IsInf(w, 0) || math.IsInf(g, 0):
			return false, f.Path + " (invalid numeric value)"
		}
		diff := math.Abs(g - w)
		within := diff <= f.Tolerance
		if f.Relative && w != 0 {
			// Relative to |expected|; an expected 0 compares the plain difference.
			within = diff/math.Abs(w) <= f.Tolerance
		}
		if within {
			return true, fmt.Sprintf("%s (within tolerance: diff=%s)", f.Path, jsFixed(diff, 2))
		}
		return false, fmt.Sprintf("%s (outside tolerance: diff=%s, tolerance=%s)", f.Path, jsFixed(diff, 2), jsNumber(f.Tolerance))
	case matchDate:
		g, okG := parseDate(jsString(got), f.Formats)
		if !okG {
			return false, f.Path + " (unparseable candidate date)"
		}
		w, okW := parseDate(jsString(want), f.Formats)
		if !okW {
			return false, f.Path + " (unparseable expected date)"
		}
		if w == g {
			return true, f.Path
		}
		return false, fmt.Sprintf("%s (date mismatch: got %s, expected %s)", f.Path, g, w)
	}
	if reflect.DeepEqual(want, got) {
		return true, f.Path
	}
	if tw, tg := jsTypeof(want), jsTypeof(got); tw != tg {
		return false, fmt.Sprintf("%s (type mismatch: got %s, expected %s)", f.Path, tg, tw)
	}
	return false, f.Path + " (value mismatch)"
}

// jsTypeof names a decoded JSON value's type as JavaScript's typeof does.
func jsTypeof(v any) string {
	switch v.(type) {
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	return "object"
}

// jsFloatPrefix is the number at the start of a string that JavaScript's parseFloat reads.
var jsFloatPrefix = regexp.MustCompile(`^[+-]?(?:Infinity|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)`)

// jsParseFloat reads a number, or a string as JavaScript's parseFloat does (the longest
// number at its start: "42 kg" is 42).
func jsParseFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		m := jsFloatPrefix.FindString(strings.TrimLeft(x, " \t\n\r\v\f\u00a0\ufeff"))
		if m == "" {
			return 0, false
		}
		if strings.HasSuffix(m, "Infinity") {
			return math.Inf(map[bool]int{true: -1, false: 1}[strings.HasPrefix(m, "-")]), true
		}
		f, err := strconv.ParseFloat(m, 64)
		return f, err == nil || errors.Is(err, strconv.ErrRange)
	}
	return 0, false
}

// pathStep is one step of a field path: a key, or an index when key is "".
type pathStep struct {
	key   string
	index int
}

// parsePath reads dot notation with [i] indexes ("a.b[0].c"); a leading "$." is allowed.
func parsePath(p string) ([]pathStep, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(p), "$"), ".")
	if s == "" {
		return nil, fmt.Errorf("empty path %q", p)
	}
	var steps []pathStep
	for _, part := range strings.Split(s, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" && rest == "" {
			return nil, fmt.Errorf("path %q has an empty segment", p)
		}
		if key != "" {
			steps = append(steps, pathStep{key: key})
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(idx)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: bad index [%s", p, rest)
			}
			steps = append(steps, pathStep{index: n})
			if after == "" {
				break
			}
			if !strings.HasPrefix(after, "[") {
				return nil, fmt.Errorf("path %q: unexpected %q after an index", p, after)
			}
			rest = after[1:]
		}
	}
	return steps, nil
}

// lookupPath follows steps as JavaScript property access does: a numeric key indexes a list
// ("items.0") and an index names an object's key ("m[0]" reads m["0"]).
func lookupPath(v any, steps []pathStep) (any, bool) {
	for _, st := range steps {
		if st.key != "" {
			if l, ok := v.([]any); ok {
				n, err := strconv.Atoi(st.key)
				if err != nil || n < 0 || n >= len(l) {
					return nil, false
				}
				v = l[n]
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[st.key]; !ok {
				return nil, false
			}
			continue
		}
		if m, ok := v.(map[string]any); ok {
			if v, ok = m[strconv.Itoa(st.index)]; !ok {
				return nil, false
			}
			continue
		}
		l, ok := v.([]any)
		if !ok || st.index >= len(l) {
			return nil, false
		}
		v = l[st.index]
	}
	return v, true
}
