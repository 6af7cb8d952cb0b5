package providers

import (
	"strings"
	"testing"

	"github.com/agentv/action/targets"
)

// TestAPIIgnoresSDKEnvironment: the provider SDKs read OPENAI_*, ANTHROPIC_*, GEMINI_* and
// GOOGLE_* variables implicitly. A stray one in a runner's environment must not redirect a
// target, replace its key or add headers. (t.Setenv: not parallel.)
//
//nolint:paralleltest // t.Setenv changes the whole process environment.
func TestAPIIgnoresSDKEnvironment(t *testing.T) {
	stray := map[string]string{
		"OPENAI_BASE_URL": "http://127.0.0.1:9/evil", "OPENAI_API_KEY": "env-openai-key", "OPENAI_ADMIN_KEY": "env-admin",
		"OPENAI_ORG_ID": "env-org", "OPENAI_PROJECT_ID": "env-project", "OPENAI_CUSTOM_HEADERS": "X-Leak: openai",
		"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/evil", "ANTHROPIC_API_KEY": "env-anthropic-key",
		"ANTHROPIC_AUTH_TOKEN": "env-token", "ANTHROPIC_CUSTOM_HEADERS": "X-Leak: anthropic", "ANTHROPIC_PROFILE": "nope",
		"GEMINI_API_KEY": "env-gemini-key", "GOOGLE_API_KEY": "env-google-key", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9/evil",
		"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1",
	}
	for k, v := range stray {
		t.Setenv(k, v)
	}
	for _, spec := range apiSpecs() {
		for _, viaDefault := range []bool{false, true} {
			name := spec.kind + "/base_url set"
			if viaDefault {
				if spec.kind == targets.KindAzure {
					continue // Azure has no default host
				}
				name = spec.kind + "/default host"
			}
			t.Run(name, func(t *testing.T) {
				f := newAPIFake(t, spec.tls, apiStep{Status: 200, Body: spec.ok("fine")})
				settings := spec.settings(f.srv.URL)
				client := f.srv.Client()
				var rd *apiRedirect
				if viaDefault {
					delete(settings, "base_url")
					client, rd = apiRedirectClient(f)
				}
				p, _, err := New(apiTestTarget(spec.kind, settings, nil), Options{HTTPClient: client})
				if err != nil {
					t.Fatal(err)
				}
				resp, err := apiInvoke(t, p, "hi")
				if err != nil {
					t.Fatalf("Invoke: %v", err)
				}
				if resp.Text != "fine" {
					t.Errorf("Text = %q", resp.Text)
				}
				reqs := f.requests()
				if len(reqs) != 1 {
					t.Fatalf("fake saw %d requests, want 1", len(reqs))
				}
				s := reqs[0]
				if got := spec.auth(s.Header); got != apiTestKey {
					t.Errorf("credential = %q, want the target's key", got)
				}
				for _, h := range []string{"X-Leak", "OpenAI-Organization", "OpenAI-Project"} {
					if v := s.Header.Get(h); v != "" {
						t.Errorf("header %s: %q came from the environment", h, v)
					}
				}
				if rd != nil {
					for _, u := range rd.seen() {
						if strings.Contains(u, "127.0.0.1:9") || strings.Contains(u, "aiplatform") {
							t.Errorf("request went to %s: the environment changed the host", u)
						}
					}
				}
			})
		}
	}
}
