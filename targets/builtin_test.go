package targets

import (
	"strings"
	"testing"
)

// --model's PROVIDER:MODEL: AgentV 4.42.4's errors for a missing colon or an unknown prefix
// (agentv-provider.ts), and the target each known prefix becomes.
func TestBuiltinGrader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		model    string
		env      map[string]string
		kind     string
		settings map[string]any
		err      string
	}{
		{model: "openai:gpt-5-mini", kind: KindOpenAI,
			settings: map[string]any{"model": "gpt-5-mini", "api_key": "${{ OPENAI_API_KEY }}", "temperature": 0}},
		{model: "openai:gpt-5-mini", env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, kind: KindOpenAI,
			settings: map[string]any{"base_url": "${{ OPENAI_BASE_URL }}"}},
		{model: "anthropic:claude-sonnet-4-20250514", kind: KindAnthropic,
			settings: map[string]any{"model": "claude-sonnet-4-20250514", "api_key": "${{ ANTHROPIC_API_KEY }}"}},
		{model: "google:gemini-2.5-flash", kind: KindGemini,
			settings: map[string]any{"model": "gemini-2.5-flash", "api_key": "${{ GEMINI_API_KEY }}"}},
		{model: "azure:gpt-4o", env: map[string]string{"AZURE_OPENAI_RESOURCE_NAME": "acme"}, kind: KindAzure,
			settings: map[string]any{"deployment": "gpt-4o", "endpoint": "${{ AZURE_OPENAI_RESOURCE_NAME }}", "api_key": "${{ AZURE_OPENAI_API_KEY }}"}},
		{model: "azure:gpt-4o", env: map[string]string{"AZURE_OPENAI_RESOURCE_NAME": "acme", "AZURE_OPENAI_BASE_URL": "https://x.openai.azure.com/openai/v1"},
			kind: KindAzure, settings: map[string]any{"endpoint": "${{ AZURE_OPENAI_BASE_URL }}"}},
		{model: "azure:gpt-4o", err: "Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME"},
		{model: "gpt-5-mini", err: `Invalid agentv model "gpt-5-mini". Expected "provider:model" (e.g., "openai:gpt-5-mini").`},
		{model: "foo:bar", err: `Unsupported agentv provider "foo" in "foo:bar". Supported: openai, anthropic, azure, google.`},
		{model: "gemini:gemini-2.5-flash", err: `Unsupported agentv provider "gemini"`},
		{model: "openai:", err: `names no model after "openai:"`},
	}
	for _, tc := range cases {
		t.Run(tc.model, func(t *testing.T) {
			t.Parallel()
			tg, err := BuiltinGrader(tc.model, func(n string) (string, bool) { v, ok := tc.env[n]; return v, ok }, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tg.Name != BuiltinGraderName || tg.Kind != tc.kind {
				t.Errorf("target %q of kind %q, want %q of kind %q", tg.Name, tg.Kind, BuiltinGraderName, tc.kind)
			}
			for k, want := range tc.settings {
				if s := tg.Settings[k]; s == nil || s.Value != want {
					t.Errorf("setting %s = %v, want %v", k, s, want)
				}
			}
		})
	}
}
