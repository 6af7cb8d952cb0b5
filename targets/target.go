// Package targets reads targets files: where they are found, their entries and settings,
// `${{ VAR }}` references resolved from the environment and .env files (and registered as
// secrets), and the load-time checks of cli targets. It knows nothing of how a provider
// talks to its model; package providers builds providers from the Targets loaded here.
package targets

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// LookupEnv reads a variable of the environment used for `${{ VAR }}` (process env plus .env files).
type LookupEnv func(name string) (string, bool)

// Setting is one key of a target entry.
type Setting struct {
	Key   string // as written in the file
	Value any    // decoded YAML: string, int, float64, bool, []any, map[string]any, nil
	Pos   suite.Position
}

// Price turns token usage into cost: USD per million tokens.
type Price struct {
	InputPerMTok  float64
	OutputPerMTok float64
}

// Cost returns the cost in USD of input and output token counts; 0 without a price.
func (p *Price) Cost(input, output int64) float64 {
	if p == nil {
		return 0
	}
	return (float64(input)*p.InputPerMTok + float64(output)*p.OutputPerMTok) / 1e6
}

// Target is one entry of targets.yaml.
type Target struct {
	Name     string
	Kind     string // canonical provider kind
	Provider string // `provider:` as written
	Pos      suite.Position
	File     string // targets file, as displayed
	Dir      string // absolute directory of the targets file

	JudgeTarget      string
	Workers          int // 0 when unset
	ProviderBatching bool
	Price            *Price

	// Settings by normalized (snake_case) key. Common keys above are also present here.
	Settings map[string]*Setting
	Env      LookupEnv
	Redactor *redact.Redactor
	// EnvSyntax5: the file is AgentV 5.x's, which writes `{{ env.VAR }}` (read as `${{ VAR }}`),
	// so messages quote references that way.
	EnvSyntax5 bool

	used map[string]bool
}

// SettingError is an invalid or missing target setting.
type SettingError struct {
	Target string
	Field  string
	Pos    suite.Position
	Msg    string
}

func (e *SettingError) Error() string {
	d := suite.Diagnostic{File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col,
		Message: fmt.Sprintf("target %q: %s: %s", e.Target, e.Field, e.Msg)}
	return d.Error()
}

// UnsetVarError is a `${{ VAR }}` reference to a variable that is not set (or blank).
// On a fork pull request this means secrets were withheld (outcome skipped).
type UnsetVarError struct {
	Target string
	Field  string
	Var    string
	Pos    suite.Position
	Env5   bool // written `{{ env.VAR }}` (AgentV 5.x)
}

func (e *UnsetVarError) Error() string {
	ref := "${{ " + e.Var + " }}"
	if e.Env5 {
		ref = "{{ env." + e.Var + " }}"
	}
	d := suite.Diagnostic{File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col,
		Message: fmt.Sprintf("target %q: %s: environment variable %s is not set (referenced as %s)", e.Target, e.Field, e.Var, ref)}
	return d.Error()
}

var envRef = regexp.MustCompile(`^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$`)

// EnvRef returns the variable name when s is a whole-value `${{ VAR }}` reference.
func EnvRef(s string) (string, bool) {
	m := envRef.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// SnakeCase normalizes a setting key: camelCase and kebab-case become snake_case.
func SnakeCase(key string) string {
	var b strings.Builder
	rs := []rune(key)
	for i, r := range rs {
		switch {
		case r == '-':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 && rs[i-1] != '_' && rs[i-1] != '-' && (!unicode.IsUpper(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// IsSecretKey reports whether a setting's key names a secret (api_key, token, password, …):
// its value is masked everywhere and kept out of anything derived from the settings.
func IsSecretKey(key string) bool {
	k := SnakeCase(key)
	for _, w := range []string{"key", "token", "secret", "password", "credential", "auth"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// lookup finds the first present key among keys (normalized) and marks it used.
func (t *Target) lookup(keys ...string) (*Setting, string) {
	for _, k := range keys {
		k = SnakeCase(k)
		if s, ok := t.Settings[k]; ok && s.Value != nil {
			if t.used == nil {
				t.used = map[string]bool{}
			}
			t.used[k] = true
			return s, k
		}
	}
	return nil, ""
}

// MarkUsed records keys as known settings of the provider even when absent or unread.
func (t *Target) MarkUsed(keys ...string) {
	if t.used == nil {
		t.used = map[string]bool{}
	}
	for _, k := range keys {
		t.used[SnakeCase(k)] = true
	}
}

// Unused returns the settings no accessor asked for, sorted by position: unknown settings.
func (t *Target) Unused() []*Setting {
	var out []*Setting
	for k, s := range t.Settings {
		if !t.used[k] {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *Setting) int { return cmp.Or(a.Pos.Line-b.Pos.Line, a.Pos.Col-b.Pos.Col) })
	return out
}

// ErrorAt returns a SettingError positioned at s (the target itself when s is nil); the
// message is redacted.
func (t *Target) ErrorAt(s *Setting, field, format string, args ...any) error {
	pos := t.Pos
	if s != nil {
		pos = s.Pos
		field = s.Key
	}
	// A message quoting a value resolved from the environment must not show it.
	return &SettingError{Target: t.Name, Field: field, Pos: pos, Msg: t.Redactor.String(fmt.Sprintf(format, args...))}
}

// resolve expands a whole-value ${{ VAR }} reference and registers its value as a secret;
// secret registers a literal value too.
func (t *Target) resolve(s *Setting, raw string, secret bool) (string, error) {
	name, ok := EnvRef(raw)
	if !ok {
		if secret {
			t.Redactor.Add(raw)
		}
		return raw, nil
	}
	var v string
	if t.Env != nil {
		v, _ = t.Env(name)
	}
	if strings.TrimSpace(v) == "" {
		return "", &UnsetVarError{Target: t.Name, Field: s.Key, Var: name, Pos: s.Pos, Env5: t.EnvSyntax5}
	}
	// Whatever setting it fills, a value from the environment may be a key: it is masked
	// (unless a number or a boolean, which cannot be one).
	if !plainValue(v) {
		t.Redactor.Add(v)
	}
	return v, nil
}

// String returns a string setting, the first of keys present. `${{ VAR }}` is resolved;
// values of secret-like keys are registered with the redactor.
func (t *Target) String(keys ...string) (string, bool, error) {
	s, k := t.lookup(keys...)
	if s == nil {
		return "", false, nil
	}
	raw, ok := scalarText(s.Value)
	if !ok {
		return "", true, t.ErrorAt(s, k, "want a string, got %s", typeName(s.Value))
	}
	v, err := t.resolve(s, raw, IsSecretKey(k))
	return v, true, err
}

// Float returns a number setting (numbers or numeric strings, `${{ VAR }}` allowed).
func (t *Target) Float(keys ...string) (float64, bool, error) {
	s, k := t.lookup(keys...)
	if s == nil {
		return 0, false, nil
	}
	switch v := s.Value.(type) {
	case int:
		return float64(v), true, nil
	case int64:
		return float64(v), true, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, true, t.ErrorAt(s, k, "want a finite number, got %v", v)
		}
		return v, true, nil
	case string:
		str, err := t.resolve(s, v, false)
		if err != nil {
			return 0, true, err
		}
		f, perr := strconv.ParseFloat(strings.TrimSpace(str), 64)
		if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, true, t.ErrorAt(s, k, "want a number, got %q", str)
		}
		return f, true, nil
	}
	return 0, true, t.ErrorAt(s, k, "want a number, got %s", typeName(s.Value))
}

// Int returns an integer setting.
func (t *Target) Int(keys ...string) (int, bool, error) {
	f, ok, err := t.Float(keys...)
	if err != nil || !ok {
		return 0, ok, err
	}
	if f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		s, k := t.lookup(keys...)
		return 0, true, t.ErrorAt(s, k, "want a whole number, got %v", f)
	}
	return int(f), true, nil
}

// Bool returns a boolean setting (true/false, "true"/"false", "1"/"0").
func (t *Target) Bool(keys ...string) (bool, bool, error) {
	s, k := t.lookup(keys...)
	if s == nil {
		return false, false, nil
	}
	switch v := s.Value.(type) {
	case bool:
		return v, true, nil
	case int:
		if v == 0 || v == 1 {
			return v == 1, true, nil
		}
	case string:
		str, err := t.resolve(s, v, false)
		if err != nil {
			return false, true, err
		}
		switch lower(str) {
		case "true", "1", "yes":
			return true, true, nil
		case "false", "0", "no":
			return false, true, nil
		}
	}
	return false, true, t.ErrorAt(s, k, "want true or false, got %v", s.Value)
}

// Strings returns a list-of-strings setting; each item may be a `${{ VAR }}` reference.
// A single string is accepted as a one-item list.
func (t *Target) Strings(keys ...string) ([]string, bool, error) {
	s, k := t.lookup(keys...)
	if s == nil {
		return nil, false, nil
	}
	var items []any
	switch v := s.Value.(type) {
	case []any:
		items = v
	case string:
		items = []any{v}
	default:
		return nil, true, t.ErrorAt(s, k, "want a list of strings, got %s", typeName(v))
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		raw, ok := scalarText(it)
		if !ok {
			return nil, true, t.ErrorAt(s, k, "item %d: want a string, got %s", i+1, typeName(it))
		}
		v, err := t.resolve(s, raw, IsSecretKey(k))
		if err != nil {
			return nil, true, err
		}
		out = append(out, v)
	}
	return out, true, nil
}

// Raw returns a setting's decoded value without resolution.
func (t *Target) Raw(keys ...string) (*Setting, bool) {
	s, _ := t.lookup(keys...)
	return s, s != nil
}

// Error returns a SettingError for a present setting (keys[0] when absent).
func (t *Target) Error(key, format string, args ...any) error {
	s, _ := t.Raw(key)
	return t.ErrorAt(s, key, format, args...)
}

// scalarText is a string, number or boolean as text; false for anything else.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int, int64, float64, bool:
		return fmt.Sprint(x), true
	}
	return "", false
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case int, int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}

// ReferencedVars lists the variables the target's settings name with `${{ VAR }}`, at any
// depth: a GitHub token variable among them stays in child processes' environment.
func (t *Target) ReferencedVars() []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if name, ok := EnvRef(x); ok {
				out = append(out, name)
			}
		case []any:
			for _, it := range x {
				walk(it)
			}
		case map[string]any:
			for _, it := range x {
				walk(it)
			}
		}
	}
	for _, s := range t.Settings {
		walk(s.Value)
	}
	return out
}

// Reader reads a target's settings and keeps the first error: reads after it return zero
// values, so a provider's constructor reads on and returns Err once, as if it had stopped there.
type Reader struct {
	T   *Target
	Err error
}

func read[V any](r *Reader, get func(...string) (V, bool, error), keys []string) (V, bool) {
	var zero V
	if r.Err != nil {
		return zero, false
	}
	v, ok, err := get(keys...)
	if err != nil {
		r.Err = err
		return zero, false
	}
	return v, ok
}

func (r *Reader) String(keys ...string) (string, bool)    { return read(r, r.T.String, keys) }
func (r *Reader) Float(keys ...string) (float64, bool)    { return read(r, r.T.Float, keys) }
func (r *Reader) Int(keys ...string) (int, bool)          { return read(r, r.T.Int, keys) }
func (r *Reader) Bool(keys ...string) (bool, bool)        { return read(r, r.T.Bool, keys) }
func (r *Reader) Strings(keys ...string) ([]string, bool) { return read(r, r.T.Strings, keys) }

// Trimmed is String without surrounding space, "" when unset.
func (r *Reader) Trimmed(keys ...string) string {
	v, _ := r.String(keys...)
	return strings.TrimSpace(v)
}

// Require is String for a mandatory setting; the error names keys[0].
func (r *Reader) Require(keys ...string) string {
	v, ok := r.String(keys...)
	if !ok || strings.TrimSpace(v) == "" {
		r.Check(r.T.ErrorAt(nil, keys[0], "required setting is missing"))
		return ""
	}
	return v
}

// Seconds reads a positive number of seconds from key and returns the smaller of it and limit
// (the run's --timeout; 0: none); 0 when neither is set.
func (r *Reader) Seconds(key string, limit time.Duration) time.Duration {
	var d time.Duration
	if f, ok := r.Float(key); ok && f <= 0 {
		r.Fail(key, "want a positive number of seconds, got %v", f)
	} else if ok {
		d = time.Duration(f * float64(time.Second))
	}
	if limit > 0 && (d == 0 || limit < d) {
		d = limit
	}
	return d
}

// Check keeps err unless an error came first.
func (r *Reader) Check(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

// Fail keeps the error of key's value (see Error) unless an error came first.
func (r *Reader) Fail(key, format string, args ...any) {
	if r.Err == nil {
		r.Err = r.T.Error(key, format, args...)
	}
}
