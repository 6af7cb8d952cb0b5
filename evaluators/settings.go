package evaluators

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/agentv/action/suite"
)

// settings decodes the keys of an evaluator entry (spec.Settings) for the types the loader
// does not model. Spelling alternatives (snake_case first, then camelCase) are tried in order.
// Problems are *suite.SettingError naming the setting, so the loader can point at it.
type settings map[string]json.RawMessage

func settingsOf(spec *suite.EvaluatorSpec) (settings, error) {
	if isNull(spec.Settings) {
		return settings{}, nil
	}
	var s settings
	if err := json.Unmarshal(spec.Settings, &s); err != nil {
		return nil, fmt.Errorf("evaluator settings are not a JSON object: %w", err)
	}
	return s, nil
}

// raw returns the first present, non-null key.
func (s settings) raw(keys ...string) (json.RawMessage, string) {
	for _, k := range keys {
		if v, ok := s[k]; ok && !isNull(v) {
			return v, k
		}
	}
	return nil, ""
}

// number returns a finite, non-negative number setting.
func (s settings) number(keys ...string) (float64, bool, error) {
	v, k := s.raw(keys...)
	if v == nil {
		return 0, false, nil
	}
	f, err := nonNegative(v, k)
	return f, true, err
}

// nonNegative reads the finite number >= 0 at path.
func nonNegative(v json.RawMessage, path string) (float64, error) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, settingErr(path, "must be a number >= 0, got %s", v)
	}
	return f, nil
}

// decode unmarshals a setting into dst.
func (s settings) decode(dst any, keys ...string) (bool, error) {
	v, k := s.raw(keys...)
	if v == nil {
		return false, nil
	}
	return true, decodeAt(v, dst, k)
}

// decodeAt unmarshals the setting at path into dst; a value of the wrong kind is reported at
// the field inside it (encoding/json names struct fields, not list indexes or map keys).
func decodeAt(v json.RawMessage, dst any, path string) error {
	err := json.Unmarshal(v, dst)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		if te.Field != "" {
			path += "." + te.Field
		}
		t := te.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return settingErr(path, "must be %s, got %s", cmp.Or(wantKinds[t.Kind()], t.String()),
			cmp.Or(gotKinds[te.Value], strings.TrimPrefix(te.Value, "number ")))
	}
	return settingErr(path, "%v", err)
}

// Kinds in messages, for Go kinds and for the JSON kinds encoding/json and jsonKind report.
var (
	wantKinds = map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "true or false", reflect.Slice: "a list",
		reflect.Map: "a mapping", reflect.Struct: "a mapping", reflect.Float64: "a number", reflect.Int: "a whole number"}
	gotKinds = map[string]string{"object": "a mapping", "array": "a list", "string": "a string", "bool": "a boolean"}
)

// jsonKind names a JSON value's type as 4.x's reply schema does: object, array, string,
// number, boolean or null.
func jsonKind(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "" || s == "null":
		return "null"
	case s[0] == '{':
		return "object"
	case s[0] == '[':
		return "array"
	case s[0] == '"':
		return "string"
	case s == "true" || s == "false":
		return "boolean"
	}
	return "number"
}

// kindOf names a JSON value's kind for messages: "a mapping", "the number 2", "true", ….
func kindOf(v json.RawMessage) string {
	k := jsonKind(v)
	switch k {
	case "number":
		return "the number " + string(v)
	case "boolean":
		return string(v)
	}
	return cmp.Or(gotKinds[k], k)
}
