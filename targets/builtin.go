package targets

import (
	"fmt"
	"strings"

	"github.com/agentv/action/internal/redact"
)

// BuiltinGraderName is the judge target name AgentV 4.x reserves for its built-in grader:
// `--grader-target agentv --model PROVIDER:MODEL` needs no targets file entry.
const BuiltinGraderName = "agentv"

// builtinProvider is how one PROVIDER: prefix of --model becomes a target: the provider
// kind, and the environment variables AgentV 4.42.4's model library (pi-ai) reads for the
// key and, where it reads one, the endpoint. base names a variable for the server's URL
// that pi-ai does not read for that vendor; here it points the grader at a compatible
// server or a local test fake.
type builtinProvider struct {
	kind     string
	keyVar   string   // the key, as the target's api_key
	baseKey  string   // the setting of the server's URL
	baseVars []string // the first one set is the server's URL
	modelKey string
}

// builtinProviders are 4.42.4's prefixes (agentv-provider.ts: openai, anthropic, azure,
// google), in its order for the error message.
var builtinProviders = []struct {
	prefix string
	p      builtinProvider
}{
	{"openai", builtinProvider{kind: KindOpenAI, keyVar: "OPENAI_API_KEY",
		baseKey: "base_url", baseVars: []string{"OPENAI_BASE_URL"}, modelKey: "model"}},
	{"anthropic", builtinProvider{kind: KindAnthropic, keyVar: "ANTHROPIC_API_KEY",
		baseKey: "base_url", baseVars: []string{"ANTHROPIC_BASE_URL"}, modelKey: "model"}},
	// pi-ai's Azure endpoint: AZURE_OPENAI_BASE_URL, else AZURE_OPENAI_RESOURCE_NAME; the
	// model is the deployment.
	{"azure", builtinProvider{kind: KindAzure, keyVar: "AZURE_OPENAI_API_KEY",
		baseKey: "endpoint", baseVars: []string{"AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME"}, modelKey: "deployment"}},
	{"google", builtinProvider{kind: KindGemini, keyVar: "GEMINI_API_KEY",
		baseKey: "base_url", baseVars: []string{"GOOGLE_GEMINI_BASE_URL"}, modelKey: "model"}},
}

// ParseGraderModel checks a --model value, PROVIDER:MODEL, with AgentV 4.42.4's messages,
// and returns the provider's prefix and the model id.
func ParseGraderModel(model string) (prefix, id string, err error) {
	_, prefix, id, err = parseGraderModel(model)
	return prefix, id, err
}

func parseGraderModel(model string) (b builtinProvider, prefix, id string, err error) {
	prefix, id, ok := strings.Cut(model, ":")
	if !ok {
		return b, "", "", fmt.Errorf("Invalid agentv model %q. Expected \"provider:model\" (e.g., \"openai:gpt-5-mini\").", model) //nolint:staticcheck // 4.42.4's words
	}
	for _, x := range builtinProviders {
		if x.prefix == prefix {
			if strings.TrimSpace(id) == "" {
				return b, "", "", fmt.Errorf("--model %q names no model after %q (e.g., \"openai:gpt-5-mini\")", model, prefix+":")
			}
			return x.p, prefix, id, nil
		}
	}
	return b, "", "", fmt.Errorf("Unsupported agentv provider %q in %q. Supported: openai, anthropic, azure, google.", prefix, model) //nolint:staticcheck // 4.42.4's words
}

// BuiltinGrader returns the target of `--grader-target agentv --model PROVIDER:MODEL`: a
// target of the matching API provider with that model, temperature 0 (4.42.4's), and the key
// read from the vendor's usual variable through env like any `${{ VAR }}`, so it is masked
// in every output and a missing one is reported as an unset variable.
func BuiltinGrader(model string, env LookupEnv, red *redact.Redactor) (*Target, error) {
	b, prefix, id, err := parseGraderModel(model)
	if err != nil {
		return nil, err
	}
	t := &Target{Name: BuiltinGraderName, Kind: b.kind, Provider: prefix, Env: env, Redactor: red,
		File: "--grader-target agentv --model " + model, Settings: map[string]*Setting{}}
	set := func(key string, v any) { t.Settings[key] = &Setting{Key: key, Value: v} }
	set("name", BuiltinGraderName)
	set("provider", prefix)
	set(b.modelKey, id)
	set("temperature", 0)
	set("api_key", "${{ "+b.keyVar+" }}")
	for _, v := range b.baseVars {
		if s, ok := lookup(env, v); ok && strings.TrimSpace(s) != "" {
			set(b.baseKey, "${{ "+v+" }}")
			break
		}
	}
	if b.kind == KindAzure && t.Settings[b.baseKey] == nil {
		// pi-ai's own error: an Azure grader has nowhere to send requests without one of these.
		return nil, fmt.Errorf("--model %s: Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME", model)
	}
	return t, nil
}

func lookup(env LookupEnv, name string) (string, bool) {
	if env == nil {
		return "", false
	}
	return env(name)
}
