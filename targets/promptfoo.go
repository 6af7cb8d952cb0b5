package targets

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// promptfoo providers as our targets (docs/promptfoo.md, Providers): the id's prefix picks the
// kind, the rest is the model (or the command), and the base URL and key come from the
// provider's config or the variables promptfoo reads. Keys stay `${{ VAR }}` references, so
// they are resolved, masked and passed on as any targets file's are.
type pfVendor struct {
	prefix   string   // of the provider id
	kind     string   // our provider kind
	model    string   // the setting the rest of the id fills
	base     string   // the setting the base URL fills
	baseKeys []string // config keys holding the base URL
	baseEnv  []string // variables promptfoo reads it from, in order
	keyEnv   []string // variables holding the API key, in order
}

var pfVendors = []pfVendor{
	{"openai:chat:", KindOpenAI, "model", "base_url", []string{"apiBaseUrl", "apiHost"}, []string{"OPENAI_BASE_URL", "OPENAI_API_BASE_URL"}, []string{"OPENAI_API_KEY"}},
	{"openai:", KindOpenAI, "model", "base_url", []string{"apiBaseUrl", "apiHost"}, []string{"OPENAI_BASE_URL", "OPENAI_API_BASE_URL"}, []string{"OPENAI_API_KEY"}},
	{"anthropic:messages:", KindAnthropic, "model", "base_url", []string{"apiBaseUrl"}, []string{"ANTHROPIC_BASE_URL"}, []string{"ANTHROPIC_API_KEY"}},
	{"azure:chat:", KindAzure, "deployment", "endpoint", []string{"apiHost", "apiBaseUrl"}, []string{"AZURE_API_BASE_URL", "AZURE_API_HOST", "AZURE_OPENAI_API_HOST"}, []string{"AZURE_API_KEY", "AZURE_OPENAI_API_KEY"}},
	{"google:", KindGemini, "model", "base_url", []string{"apiBaseUrl", "apiHost"}, []string{"GOOGLE_API_BASE_URL"}, []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}},
	{"vertex:", KindGemini, "model", "base_url", []string{"apiBaseUrl", "apiHost"}, []string{"GOOGLE_API_BASE_URL"}, []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}},
}

// pfSampling are the config keys that map onto our sampling settings.
var pfSampling = map[string]string{"temperature": "temperature", "max_tokens": "max_tokens", "maxTokens": "max_tokens"}

func fromDef(d suite.TargetDef, dir string, env LookupEnv, red *redact.Redactor) (*Target, error) {
	t := &Target{Name: d.Name, Pos: d.Pos, Dir: dir, Settings: map[string]*Setting{}, Env: env, Redactor: red}
	set := func(key string, v any) { t.Settings[key] = &Setting{Key: key, Value: v, Pos: d.Pos} }
	var cfg map[string]any
	if len(d.Config) > 0 {
		if err := json.Unmarshal(d.Config, &cfg); err != nil {
			return t, &SettingError{Target: t.Name, Field: "config", Pos: d.Pos, Msg: err.Error()}
		}
	}
	if cmd, ok := strings.CutPrefix(d.Provider, "exec:"); ok {
		t.Kind, t.Provider = KindCLI, "cli"
		set("provider", "cli")
		// promptfoo runs the command with three more arguments: the prompt, the provider
		// options as JSON and the call context as JSON (ScriptCompletionProvider).
		opts, _ := json.Marshal(map[string]any{"id": d.Provider, "config": cmpMap(cfg)})
		set("command_template", strings.TrimSpace(cmd)+" {PROMPT} "+shellQuote(string(opts))+" '{}'")
		if _, errs := ParseCLI(t, false, func(...string) suite.Position { return d.Pos }); len(errs) > 0 {
			return t, errs[0]
		}
		return t, nil
	}
	for _, v := range pfVendors {
		rest, ok := strings.CutPrefix(d.Provider, v.prefix)
		if !ok {
			continue
		}
		t.Kind, t.Provider = v.kind, v.kind
		set("provider", v.kind)
		set(v.model, rest)
		if b := firstString(cfg, v.baseKeys...); b != "" {
			set(v.base, b)
		} else if name := firstSet(env, v.baseEnv...); name != "" {
			set(v.base, "${{ "+name+" }}")
		}
		if k := firstString(cfg, "apiKey"); k != "" {
			red.Add(k)
			set("api_key", k)
		} else if name := firstSet(env, v.keyEnv...); name != "" {
			set("api_key", "${{ "+name+" }}")
		}
		for ck, sk := range pfSampling {
			if x, ok := cfg[ck]; ok {
				set(sk, x)
			}
		}
		return t, nil
	}
	return t, &SettingError{Target: t.Name, Field: "id", Pos: d.Pos, Msg: fmt.Sprintf("promptfoo provider %q is not supported", d.Provider)}
}

func cmpMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// firstString is the first of keys that m holds as a non-empty string.
func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// firstSet is the first of names set (non-empty) in env, "" if none.
func firstSet(env LookupEnv, names ...string) string {
	for _, n := range names {
		if env == nil {
			return ""
		}
		if v, ok := env(n); ok && strings.TrimSpace(v) != "" {
			return n
		}
	}
	return ""
}

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
