package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
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

func init() { register(TypeFieldAccuracy, nil, parseFieldAccuracy, fieldAccuracy) }

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

// fieldAccuracy compares fields of the candidate's JSON answer with the expected answer.
func fieldAccuracy(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, cfg *faConfig) verdict {
	v := verdict{hits: []string{}, misses: []string{}}
	raw, ok := jsonx.FirstObject(r.in.Candidate)
	var cand any
	if !ok || json.Unmarshal(raw, &cand) != nil {
		v.misses = append(v.misses, "candidate answer is not JSON: "+proc.Excerpt(r.in.Candidate, 100))
		v.reasoning = "candidate answer is not JSON"
		return v
	}
	expected := expectedObject(r.in.Case.Expected)

	var sum, wsum float64
	matched, counted := 0, 0
	allMatched := true
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
			ok, note = true, "no expected value"
		case !haveGot && (f.Required == nil || *f.Required):
			ok, note = false, "missing from the answer"
		case !haveGot:
			continue // optional and absent: does not count
		default:
			ok, note = matchField(f, want, got)
		}
		counted++
		sum += w * b2f(ok)
		wsum += w
		if ok {
			matched++
			addCapped(&v.hits, fmt.Sprintf("%s: %s", f.Path, note))
		} else {
			allMatched = false
			addCapped(&v.misses, fmt.Sprintf("%s: %s", f.Path, note))
		}
	}
	switch {
	case cfg.allOrNothing:
		v.score = b2f(allMatched && counted > 0)
	case wsum > 0:
		v.score = sum / wsum
	}
	v.reasoning = fmt.Sprintf("%d/%d fields matched", matched, counted)
	return v
}

func addCapped(list *[]string, s string) {
	if len(*list) < maxVerdictItems {
		*list = append(*list, s)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// expectedObject is the content of the last assistant expected message that has content:
// structured content, or text holding JSON. nil when there is none.
func expectedObject(msgs []suite.Message) any {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != suite.RoleAssistant || m.Content.Kind == suite.ContentNone {
			continue
		}
		var v any
		switch m.Content.Kind {
		case suite.ContentStructured:
			_ = json.Unmarshal(m.Content.Structured, &v)
		case suite.ContentText:
			_ = json.Unmarshal([]byte(strings.TrimSpace(m.Content.Text)), &v)
		}
		return v
	}
	return nil
}

// matchField compares one field; note says how it matched or why not.
func matchField(f *faField, want, got any) (bool, string) {
	switch f.Match {
	case matchNumeric:
		w, okW := toNumber(want)
		g, okG := toNumber(got)
		if !okW || !okG {
			return false, fmt.Sprintf("not a number: expected %s, got %s", short(want), short(got))
		}
		tol := f.Tolerance
		if f.Relative {
			tol *= math.Abs(w)
		}
		if math.Abs(w-g) <= tol {
			return true, fmt.Sprintf("%s within %g of %s", short(got), tol, short(want))
		}
		return false, fmt.Sprintf("expected %s ± %g, got %s", short(want), tol, short(got))
	case matchDate:
		w, okW := parseDate(want, f.Formats)
		g, okG := parseDate(got, f.Formats)
		if !okW || !okG {
			return false, fmt.Sprintf("not a date: expected %s, got %s", short(want), short(got))
		}
		if w == g {
			return true, "same date " + w.String()
		}
		return false, fmt.Sprintf("expected date %s, got %s", w, g)
	}
	if jsonEqual(want, got) {
		return true, "matches " + short(want)
	}
	return false, fmt.Sprintf("expected %s, got %s", short(want), short(got))
}

// short renders a JSON value for a hit or miss, truncated.
func short(v any) string {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return proc.Excerpt(string(b), 80)
}

func toNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// jsonEqual is deep equality of decoded JSON values.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64, string, bool, nil:
		return a == b
	}
	return false
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

func lookupPath(v any, steps []pathStep) (any, bool) {
	for _, st := range steps {
		if st.key != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[st.key]; !ok {
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
