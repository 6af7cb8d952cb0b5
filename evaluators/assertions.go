package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentv/action/suite"
)

// AgentV 4.x's deterministic assertions (contains, equals, regex, …) compare the final answer
// text (the last assistant message) with `value` and score 1 or 0.
func init() {
	// AgentV 4.x reads snake_case type names as their kebab-case form.
	snake := func(name string) []string {
		if s := strings.ReplaceAll(name, "-", "_"); s != name {
			return []string{s}
		}
		return nil
	}
	one := func(name string, check func(answer, value string) (bool, string, string)) {
		register(name, snake(name), []string{"value"}, valueParser(name), func(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, value string) verdict {
			return assertion(check(r.in.Candidate, value))
		})
	}
	list := func(name string, check func(answer string, values []string) (bool, string, string)) {
		register(name, snake(name), []string{"value"}, listParser(name), func(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, values []string) verdict {
			return assertion(check(r.in.Candidate, values))
		})
	}
	// contains, contains-any and contains-all, then their case-insensitive twins (icontains, …).
	for _, ci := range []struct {
		prefix, note string
		fold         func(string) string
	}{{"", "", func(s string) string { return s }}, {"i", " (case-insensitive)", jsLower}} {
		one(ci.prefix+"contains", func(a, v string) (bool, string, string) {
			return strings.Contains(ci.fold(a), ci.fold(v)), fmt.Sprintf("Output contains %q%s", v, ci.note),
				fmt.Sprintf("Output does not contain %q%s", v, ci.note)
		})
		list(ci.prefix+"contains-any", func(a string, vs []string) (bool, string, string) {
			a = ci.fold(a)
			if i := slices.IndexFunc(vs, func(v string) bool { return strings.Contains(a, ci.fold(v)) }); i >= 0 {
				return true, fmt.Sprintf("Output contains %q%s", vs[i], ci.note), ""
			}
			return false, "", "Output does not contain any of: " + quoteList(vs) + ci.note
		})
		list(ci.prefix+"contains-all", func(a string, vs []string) (bool, string, string) {
			a = ci.fold(a)
			missing := slices.DeleteFunc(slices.Clone(vs), func(v string) bool { return strings.Contains(a, ci.fold(v)) })
			if len(missing) == 0 {
				return true, fmt.Sprintf("Output contains all %d expected strings%s", len(vs), ci.note), ""
			}
			return false, "", "Output missing" + ci.note + ": " + quoteList(missing)
		})
	}
	// starts-with, ends-with and equals compare both sides trimmed.
	one("starts-with", func(a, v string) (bool, string, string) {
		return strings.HasPrefix(jsTrim(a), jsTrim(v)), fmt.Sprintf("Output starts with %q", v), fmt.Sprintf("Output does not start with %q", v)
	})
	one("ends-with", func(a, v string) (bool, string, string) {
		return strings.HasSuffix(jsTrim(a), jsTrim(v)), fmt.Sprintf("Output ends with %q", v), fmt.Sprintf("Output does not end with %q", v)
	})
	one("equals", func(a, v string) (bool, string, string) {
		return jsTrim(a) == jsTrim(v), fmt.Sprintf("Output equals %q", v), fmt.Sprintf("Output does not equal %q", v)
	})
	register("regex", nil, []string{"value", "flags"}, parseRegex, func(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, re *jsRegex) verdict {
		label := "/" + re.source + "/" + re.flags
		if re.flags != "" {
			label += " (flags: " + re.flags + ")"
		}
		ok, err := re.re.test(r.in.Candidate)
		if err != nil {
			return errorf(nil, "regex %s: %v", label, err)
		}
		return assertion(ok, "Output matches pattern "+label, "Output does not match pattern "+label)
	})
	// JSON.parse and encoding/json accept the same text: one JSON value, any JSON whitespace
	// around it. Its `value` is a JSON schema the answer must conform to under
	// GradingRules.JSONSchemaValue (promptfoo); AgentV ignores it.
	register("is-json", snake("is-json"), []string{}, parseIsJSON, isJSON)
}

// isJSONEntry is an is-json entry's schema, nil for none; err is why its value is not one,
// reported only where the value is read as a schema.
type isJSONEntry struct {
	schema *jsonSchema
	err    error
}

func parseIsJSON(spec *suite.EvaluatorSpec) (*isJSONEntry, error) {
	s, err := settingsOf(spec)
	if err != nil {
		return nil, err
	}
	v, _ := s.raw("value")
	e := &isJSONEntry{}
	e.schema, e.err = compileValueSchema(v)
	return e, nil
}

func isJSON(_ context.Context, r *caseRun, _ *suite.EvaluatorSpec, e *isJSONEntry) verdict {
	valid := json.Valid([]byte(r.in.Candidate))
	if !valid || !r.rules.JSONSchemaValue || e.schema == nil && e.err == nil {
		return assertion(valid, "Output is valid JSON", "Output is not valid JSON")
	}
	if e.err != nil {
		return errorf(nil, "is-json: %v", e.err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(r.in.Candidate))
	if err != nil {
		return assertion(false, "", "Output is not valid JSON")
	}
	if err := e.schema.validate(v); err != nil {
		return assertion(false, "", "JSON does not conform to the provided schema: "+err.Error())
	}
	return assertion(true, "Output is valid JSON conforming to the provided schema", "")
}

// assertion is a pass/fail verdict, score 1 with hit or 0 with miss, whose reasoning is that
// one line.
func assertion(ok bool, hit, miss string) verdict {
	if ok {
		return verdict{score: 1, hits: []string{hit}, misses: []string{}, reasoning: hit}
	}
	return verdict{hits: []string{}, misses: []string{miss}, reasoning: miss}
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// valueParser reads `value`: a non-empty string. AgentV 4.42.4 drops an entry without one
// (with a warning) and scores the case without it; here it is an error.
func valueParser(typ string) func(*suite.EvaluatorSpec) (string, error) {
	return func(spec *suite.EvaluatorSpec) (string, error) {
		s, err := settingsOf(spec)
		if err != nil {
			return "", err
		}
		v, _ := s.raw("value")
		if v == nil {
			return "", fmt.Errorf("%s needs `value`: the text to compare the answer with", typ)
		}
		var str string
		if json.Unmarshal(v, &str) != nil {
			return "", settingErr("value", "must be a string, got %s%s", kindOf(v), quoteHint(v))
		}
		if str == "" {
			return "", settingErr("value", "must not be empty")
		}
		return str, nil
	}
}

// listParser reads `value`: a non-empty list of strings. AgentV 4.42.4 drops the items that
// are not strings; here they are errors.
func listParser(typ string) func(*suite.EvaluatorSpec) ([]string, error) {
	return func(spec *suite.EvaluatorSpec) ([]string, error) {
		s, err := settingsOf(spec)
		if err != nil {
			return nil, err
		}
		v, _ := s.raw("value")
		if v == nil {
			return nil, fmt.Errorf("%s needs `value`: a list of texts to look for", typ)
		}
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return nil, settingErr("value", "must be a list of strings, got %s", kindOf(v))
		}
		if len(items) == 0 {
			return nil, settingErr("value", "must not be an empty list")
		}
		out := make([]string, len(items))
		var errs []error
		for i, it := range items {
			if json.Unmarshal(it, &out[i]) != nil || isNull(it) {
				errs = append(errs, settingErr(fmt.Sprintf("value[%d]", i), "must be a string, got %s%s", kindOf(it), quoteHint(it)))
			}
		}
		return out, errors.Join(errs...)
	}
}

// quoteHint suggests quoting a number or boolean meant as text.
func quoteHint(v json.RawMessage) string {
	if k := jsonKind(v); k == "number" || k == "boolean" {
		return fmt.Sprintf(" (quote it to compare the text: %q)", string(v))
	}
	return ""
}

// jsRegex is a `regex` entry: the pattern as written, its flags and its compiled form.
type jsRegex struct {
	source, flags string
	re            *jsPattern
}

// parseRegex reads `value` (a JavaScript regular expression source) and `flags`. RegExp.test
// on a fresh RegExp is one search from the start, so of the JavaScript flags only i, m, s, u, v
// and y (sticky: the match must start at the beginning) change the result; d and g are
// accepted and change nothing here. The pattern has JavaScript's semantics (compileJS).
// AgentV 4.42.4 reports a bad pattern or flag only when the case runs, as a failed evaluator.
func parseRegex(spec *suite.EvaluatorSpec) (*jsRegex, error) {
	source, err := valueParser("regex")(spec)
	if err != nil {
		return nil, err
	}
	s, _ := settingsOf(spec)
	r := &jsRegex{source: source}
	if v, _ := s.raw("flags"); v != nil {
		if json.Unmarshal(v, &r.flags) != nil {
			return nil, settingErr("flags", "must be a string of regular expression flags such as \"i\" or \"ims\", got %s", kindOf(v))
		}
	}
	for i, f := range r.flags {
		switch {
		case !strings.ContainsRune("dgimsuvy", f):
			return nil, settingErr("flags", "unknown flag %q in %q (valid: d, g, i, m, s, u, v, y)", f, r.flags)
		case strings.ContainsRune(r.flags[:i], f):
			return nil, settingErr("flags", "flag %q is repeated in %q", f, r.flags)
		case f == 'v' && strings.ContainsRune(r.flags, 'u'):
			return nil, settingErr("flags", "flags u and v cannot be used together")
		}
	}
	if r.re, err = compileJS(source, r.flags); err != nil {
		return nil, settingErr("value", "invalid regular expression /%s/: %v", source, err)
	}
	return r, nil
}

// jsTrim trims as JavaScript's String.prototype.trim: its whitespace is Unicode's White_Space
// without U+0085, plus U+FEFF.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r == '\uFEFF' || r != '\u0085' && unicode.IsSpace(r) })
}

// jsLower lowercases as JavaScript's toLowerCase does outside Turkish and Lithuanian locales:
// per-character mappings plus the two unconditional special cases: İ becomes i with a
// combining dot, and Σ at the end of a word becomes ς.
func jsLower(s string) string {
	if !strings.ContainsAny(s, "\u0130\u03a3") {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '\u0130':
			b.WriteString("i\u0307")
		case '\u03a3':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition for the Σ at byte i: a cased letter comes
// before it and none after it, skipping case-ignorable characters.
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + len("Σ"); j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

func cased(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) }

func caseIgnorable(r rune) bool {
	return strings.ContainsRune("'.:^`\u00b7\u2018\u2019\u2024\u2027", r) ||
		unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
