package providers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/targets"
)

// TestBuiltinGraderWire: `--grader-target agentv --model PREFIX:MODEL` becomes a target of
// the matching provider that sends the model, temperature 0 and the key read from the
// vendor's variable (the ones AgentV 4.42.4's pi-ai reads) to the server named by the
// environment, over each vendor's real wire format.
func TestBuiltinGraderWire(t *testing.T) {
	t.Parallel()
	specs := map[string]apiSpec{}
	for _, s := range apiSpecs() {
		specs[s.kind] = s
	}
	cases := []struct {
		model, kind, keyVar, baseVar, base string
		path                               string
		temperature                        func(body map[string]any) any
		sentModel                          func(body map[string]any) any
	}{
		{model: "openai:gpt-5-mini", kind: targets.KindOpenAI, keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL", base: "/v1",
			path:        "/v1/chat/completions",
			temperature: func(b map[string]any) any { return b["temperature"] },
			sentModel:   func(b map[string]any) any { return b["model"] }},
		{model: "anthropic:claude-sonnet-4-5", kind: targets.KindAnthropic, keyVar: "ANTHROPIC_API_KEY", baseVar: "ANTHROPIC_BASE_URL",
			path:        "/v1/messages",
			temperature: func(b map[string]any) any { return b["temperature"] },
			sentModel:   func(b map[string]any) any { return b["model"] }},
		{model: "azure:gpt-4o-prod", kind: targets.KindAzure, keyVar: "AZURE_OPENAI_API_KEY", baseVar: "AZURE_OPENAI_BASE_URL", base: "/openai/v1",
			path:        "/openai/deployments/gpt-4o-prod/chat/completions",
			temperature: func(b map[string]any) any { return b["temperature"] },
			sentModel:   func(b map[string]any) any { return "gpt-4o-prod" }}, // the deployment, in the path
		{model: "google:gemini-2.5-pro", kind: targets.KindGemini, keyVar: "GEMINI_API_KEY", baseVar: "GOOGLE_GEMINI_BASE_URL",
			path: "/v1beta/models/gemini-2.5-pro:generateContent",
			temperature: func(b map[string]any) any {
				g, _ := b["generationConfig"].(map[string]any)
				return g["temperature"]
			},
			sentModel: func(b map[string]any) any { return "gemini-2.5-pro" }}, // in the path
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			spec := specs[tc.kind]
			f := newAPIFake(t, spec.tls, apiStep{Status: 200, Body: spec.ok(`{"score": 1, "assertions": []}`)})
			env := map[string]string{tc.keyVar: apiTestKey, tc.baseVar: f.srv.URL + tc.base}
			red := &redact.Redactor{}
			tg, err := targets.BuiltinGrader(tc.model, func(n string) (string, bool) { v, ok := env[n]; return v, ok }, red)
			if err != nil {
				t.Fatalf("BuiltinGrader: %v", err)
			}
			p, warns, err := New(tg, Options{HTTPClient: f.srv.Client()})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v, warnings %v", err, warns)
			}
			if _, err := apiInvoke(t, p, "grade this"); err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Path != tc.path {
				t.Errorf("path %q, want %q", r.Path, tc.path)
			}
			if got := spec.auth(r.Header); got != apiTestKey && r.Header.Get("X-Api-Key") != apiTestKey {
				t.Errorf("key sent %q, want the one from %s", got, tc.keyVar)
			}
			if got := tc.sentModel(r.Body); got != strings.SplitN(tc.model, ":", 2)[1] {
				t.Errorf("model %v, want %s", got, tc.model)
			}
			if got, _ := json.Marshal(tc.temperature(r.Body)); string(got) != "0" {
				t.Errorf("temperature %s, want 0 (4.42.4's)", got)
			}
			if red.String(apiTestKey) == apiTestKey {
				t.Errorf("the key from %s is not registered with the redactor", tc.keyVar)
			}
		})
	}
}
