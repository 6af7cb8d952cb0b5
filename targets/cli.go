package targets

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentv/action/suite"
)

// CLIPlaceholders are the only `{UPPER_CASE}` tokens a command template may hold; any other is an error.
var CLIPlaceholders = []string{"PROMPT", "PROMPT_FILE", "GUIDELINES", "EVAL_ID", "ATTEMPT", "FILES", "OUTPUT_FILE"}

// CLIPlaceholder finds `{UPPER_CASE}` tokens as AgentV does; other braces (`{path}`,
// `{Mixed}`, shell `${x}`) are left alone. Shell `${HOME}` matches too: write `$HOME`.
var CLIPlaceholder = regexp.MustCompile(`\{([A-Z_]+)\}`)

// CLIKnownKeys are the settings of a cli target, AgentV aliases included.
var CLIKnownKeys = []string{"command_template", "command", "files_format", "attachments_format", "cwd", "timeout_seconds",
	"healthcheck", "verbose", "cli_verbose", "keep_temp_files", "keep_output_files"}

// CLI is a validated cli target.
type CLI struct {
	Template    string
	FilesFormat string        // per file, with {path} / {basename}
	Cwd         string        // as configured; "" means the eval file's directory
	Timeout     time.Duration // the target's own limit; 0: none
	Verbose     bool
	KeepTemp    bool
	Health      *CLIHealth
}

// CLIHealth is a healthcheck probe.
type CLIHealth struct {
	Kind     string // "http" or "command"
	URL      string
	Template string
	Cwd      string
	Timeout  time.Duration
}

// ParseCLI reads and validates a cli target. With resolve false (load time) `${{ VAR }}`
// values are not read and only literal values are checked, so a secret withheld from a fork
// PR does not make the file invalid; New parses again with resolve true. at gives the
// position of a (normalized) settings path, for nested keys.
func ParseCLI(t *Target, resolve bool, at func(path ...string) suite.Position) (*CLI, []error) {
	t.MarkUsed(CLIKnownKeys...)
	c := &CLI{FilesFormat: "{path}"}
	var errs []error
	// AgentV 4.x calls the template `command`; AgentV 2.5's `command_template` wins when both are set.
	cmdKey := "command_template"
	if _, ok := t.Raw(cmdKey); !ok {
		if _, ok := t.Raw("command"); ok {
			cmdKey = "command"
		}
	}
	tmpl, ok, ref, err := cliString(t, resolve, cmdKey)
	switch {
	case err != nil:
		errs = append(errs, err)
	case ref:
	case !ok || strings.TrimSpace(tmpl) == "":
		errs = append(errs, &SettingError{Target: t.Name, Field: cmdKey, Pos: cliPos(t, at, cmdKey),
			Msg: "required setting is missing: the command to run, e.g. `my-agent --prompt {PROMPT} --out {OUTPUT_FILE}`"})
	default:
		if err := cliCheckTemplate(tmpl); err != nil {
			errs = append(errs, &SettingError{Target: t.Name, Field: cliKeyOf(t, cmdKey), Pos: cliPos(t, at, cmdKey), Msg: err.Error()})
		}
		c.Template = tmpl
	}
	if v, ok, _, err := cliString(t, resolve, "files_format", "attachments_format"); cliOptional(err) != nil {
		errs = append(errs, err)
	} else if ok && strings.TrimSpace(v) != "" {
		c.FilesFormat = v
	}
	if v, ok, _, err := cliString(t, resolve, "cwd"); cliOptional(err) != nil {
		errs = append(errs, err)
	} else if ok {
		c.Cwd = strings.TrimSpace(v)
	}
	if d, err := cliSeconds(t, resolve, "timeout_seconds"); err != nil {
		errs = append(errs, err)
	} else {
		c.Timeout = d
	}
	for _, kv := range []struct {
		dst  *bool
		keys []string
	}{{&c.Verbose, []string{"verbose", "cli_verbose"}}, {&c.KeepTemp, []string{"keep_temp_files", "keep_output_files"}}} {
		if s, ok := t.Raw(kv.keys...); ok && !resolve && cliIsRef(s.Value) {
			continue
		}
		if v, ok, err := t.Bool(kv.keys...); cliOptional(err) != nil {
			errs = append(errs, err)
		} else if ok {
			*kv.dst = v
		}
	}
	h, herrs := cliParseHealth(t, resolve, at)
	c.Health = h
	return c, append(errs, herrs...)
}

// cliParseHealth validates `healthcheck` against the two accepted shapes.
func cliParseHealth(t *Target, resolve bool, at func(path ...string) suite.Position) (*CLIHealth, []error) {
	s, ok := t.Raw("healthcheck")
	if !ok {
		return nil, nil
	}
	const shapes = "{type: http, url, timeout_seconds?} or {type: command, command_template, cwd?, timeout_seconds?}"
	fail := func(field string, path []string, format string, args ...any) []error {
		return []error{&SettingError{Target: t.Name, Field: field, Pos: cliPos(t, at, path...), Msg: t.Redactor.String(fmt.Sprintf(format, args...))}}
	}
	raw, ok := s.Value.(map[string]any)
	if !ok {
		return nil, fail(s.Key, []string{"healthcheck"}, "want a map %s, got %s", shapes, typeName(s.Value))
	}
	m, orig := map[string]any{}, map[string]string{}
	for k, v := range raw {
		nk := SnakeCase(k)
		if prev, dup := orig[nk]; dup && prev == nk {
			continue // the snake_case spelling wins
		}
		m[nk], orig[nk] = v, k
	}
	// AgentV 4.x writes a command healthcheck as {command, cwd}: no type, and `command` for the
	// template.
	if v, ok := m["command"]; ok {
		if _, both := m["command_template"]; !both {
			m["command_template"], orig["command_template"] = v, orig["command"]
		}
		delete(m, "command")
		if _, typed := m["type"]; !typed {
			m["type"], orig["type"] = "command", "type"
		}
	}
	typ, _ := m["type"].(string)
	h := &CLIHealth{Kind: lower(typ)}
	var allowed []string
	switch h.Kind {
	case "http":
		allowed = []string{"type", "url", "timeout_seconds"}
	case "command":
		allowed = []string{"type", "command_template", "cwd", "timeout_seconds"}
	case "":
		return nil, fail(s.Key+".type", []string{"healthcheck", "type"}, "missing or not a string: want %s", shapes)
	default:
		return nil, fail(s.Key+".type", []string{"healthcheck", "type"}, "unsupported healthcheck type %q (want %s)", typ, shapes)
	}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, k) {
			errs = append(errs, fail(s.Key+"."+orig[k], []string{"healthcheck", k}, "not allowed for a %s healthcheck (allowed: %s)", h.Kind, strings.Join(allowed, ", "))...)
		}
	}
	// str reads a nested string; "" with no error when absent (or an optional unset variable).
	str := func(k string, required bool) (string, bool) {
		v, present := m[k]
		field := s.Key + "." + orig[k]
		if !present || v == nil {
			if required {
				errs = append(errs, fail(s.Key+"."+k, []string{"healthcheck"}, "%s healthcheck needs `%s`", h.Kind, k)...)
			}
			return "", false
		}
		sv, ok := v.(string)
		if !ok {
			errs = append(errs, fail(field, []string{"healthcheck", k}, "want a string, got %s", typeName(v))...)
			return "", false
		}
		if _, isRef := EnvRef(sv); isRef {
			if !resolve {
				return "", false
			}
			r, err := t.resolve(&Setting{Key: field, Value: sv, Pos: cliPos(t, at, "healthcheck", k)}, sv, false)
			if err != nil {
				if required {
					errs = append(errs, err)
				}
				return "", false
			}
			sv = r
		}
		if required && strings.TrimSpace(sv) == "" {
			errs = append(errs, fail(field, []string{"healthcheck", k}, "must not be empty")...)
			return "", false
		}
		return sv, true
	}
	switch h.Kind {
	case "http":
		if u, ok := str("url", true); ok {
			if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
				errs = append(errs, fail(s.Key+"."+orig["url"], []string{"healthcheck", "url"}, "want an http:// or https:// URL, got %q", u)...)
			}
			h.URL = u
		}
	case "command":
		if tmpl, ok := str("command_template", true); ok {
			if err := cliCheckTemplate(tmpl); err != nil {
				errs = append(errs, fail(s.Key+"."+orig["command_template"], []string{"healthcheck", "command_template"}, "%v", err)...)
			}
			h.Template = tmpl
		}
		h.Cwd, _ = str("cwd", false)
	}
	if v, present := m["timeout_seconds"]; present && v != nil && (!cliIsRef(v) || resolve) {
		if sv, ok := v.(string); ok {
			if _, isRef := EnvRef(sv); isRef {
				sv, _ = str("timeout_seconds", false)
				v = sv
			}
		}
		f, ok := number(v)
		if !ok || f <= 0 {
			errs = append(errs, fail(s.Key+"."+orig["timeout_seconds"], []string{"healthcheck", "timeout_seconds"}, "want a number of seconds > 0, got %v", v)...)
		} else {
			h.Timeout = cliDuration(f)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return h, nil
}

// cliCheckTemplate rejects `{UPPER_CASE}` placeholders other than the supported ones.
func cliCheckTemplate(tmpl string) error {
	var bad []string
	for _, m := range CLIPlaceholder.FindAllStringSubmatch(tmpl, -1) {
		if !slices.Contains(CLIPlaceholders, m[1]) && !slices.Contains(bad, m[0]) {
			bad = append(bad, m[0])
		}
	}
	if len(bad) == 0 {
		return nil
	}
	supported := make([]string, len(CLIPlaceholders))
	for i, p := range CLIPlaceholders {
		supported[i] = "{" + p + "}"
	}
	word := "placeholder"
	if len(bad) > 1 {
		word = "placeholders"
	}
	return fmt.Errorf("unsupported %s %s (supported: %s)", word, strings.Join(bad, ", "), strings.Join(supported, ", "))
}

// cliString reads a string setting. At load time (resolve false) a `${{ VAR }}` value is
// reported as ref and not read.
func cliString(t *Target, resolve bool, keys ...string) (val string, ok, ref bool, err error) {
	if resolve {
		v, ok, err := t.String(keys...)
		return v, ok, false, err
	}
	s, ok := t.Raw(keys...)
	if !ok {
		return "", false, false, nil
	}
	if cliIsRef(s.Value) {
		return "", true, true, nil
	}
	if v, ok := scalarText(s.Value); ok {
		return v, true, false, nil
	}
	return "", true, false, t.ErrorAt(s, keys[0], "want a string, got %s", typeName(s.Value))
}

// cliSeconds reads a positive number of seconds (fractions allowed).
func cliSeconds(t *Target, resolve bool, key string) (time.Duration, error) {
	if s, ok := t.Raw(key); ok && !resolve && cliIsRef(s.Value) {
		return 0, nil
	}
	f, ok, err := t.Float(key)
	if cliOptional(err) != nil {
		return 0, err
	}
	if !ok || err != nil {
		return 0, nil
	}
	if f <= 0 {
		return 0, t.Error(key, "want a number of seconds > 0, got %v", f)
	}
	return cliDuration(f), nil
}

func cliDuration(seconds float64) time.Duration {
	if seconds > math.MaxInt64/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(seconds * float64(time.Second))
}

func cliIsRef(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, isRef := EnvRef(s)
	return isRef
}

// cliOptional drops an unset-variable error: an optional setting that references an unset
// variable counts as absent, as in AgentV 2.5.
func cliOptional(err error) error {
	var ue *UnsetVarError
	if errors.As(err, &ue) {
		return nil
	}
	return err
}

// cliPos is the position of a settings path, falling back to the setting and the target.
func cliPos(t *Target, at func(path ...string) suite.Position, path ...string) suite.Position {
	if at != nil {
		if p := at(path...); p.Line > 0 {
			return p
		}
	}
	if s := t.Settings[path[0]]; s != nil {
		return s.Pos
	}
	return t.Pos
}

// cliKeyOf is the setting's key as the user wrote it.
func cliKeyOf(t *Target, key string) string {
	if s := t.Settings[key]; s != nil {
		return s.Key
	}
	return key
}
