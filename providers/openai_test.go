package providers

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agentv/action/targets"

	"github.com/google/go-cmp/cmp"
)

// apiRedirect sends every request to a loopback fake while recording the URL the SDK chose, so
// tests can check default hosts (api.openai.com, models.github.ai, ...) without a network.
type apiRedirect struct {
	to   *url.URL
	base http.RoundTripper
	mu   sync.Mutex
	urls []string
}

func (r *apiRedirect) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.Method+" "+req.URL.String())
	r.mu.Unlock()
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host, out.Host = r.to.Scheme, r.to.Host, ""
	return r.base.RoundTrip(out)
}

func (r *apiRedirect) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.urls...)
}

// apiRedirectClient returns a client for f that records and reroutes every request.
func apiRedirectClient(f *apiFake) (*http.Client, *apiRedirect) {
	to, _ := url.Parse(f.srv.URL)
	rd := &apiRedirect{to: to, base: f.srv.Client().Transport}
	return &http.Client{Transport: rd}, rd
}

func apiMessages(body map[string]any) []map[string]any {
	list, _ := body["messages"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, m := range list {
		mm, _ := m.(map[string]any)
		out = append(out, mm)
	}
	return out
}

func TestOpenAIRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings map[string]any
		env      map[string]string
		req      Request
		wantURL  string
		wantAuth string
		check    func(t *testing.T, s apiSeen)
	}{
		{
			name: "single turn with guidelines, temperature and max tokens",
			settings: map[string]any{"api_key": apiTestKey, "model": "gpt-test", "base_url": "http://vllm.internal:8000/v1",
				"temperature": 0.2, "max_output_tokens": 300},
			req:      Request{Question: "What is 2+2?", Guidelines: `<file path="style.md">` + "\nBe brief.\n</file>"},
			wantURL:  "POST http://vllm.internal:8000/v1/chat/completions",
			wantAuth: "Bearer " + apiTestKey,
			check: func(t *testing.T, s apiSeen) {
				want := []map[string]any{
					{"role": "system", "content": apiDefaultSystem + "\n\n[[ ## Guidelines ## ]]\n\n<file path=\"style.md\">\nBe brief.\n</file>"},
					{"role": "user", "content": "What is 2+2?"},
				}
				if diff := cmp.Diff(want, apiMessages(s.Body)); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
				if s.Body["model"] != "gpt-test" || s.Body["temperature"] != 0.2 || s.Body["max_tokens"] != 300.0 {
					t.Errorf("body = %v, want model gpt-test, temperature 0.2, max_tokens 300", s.Body)
				}
				if _, ok := s.Body["max_completion_tokens"]; ok {
					t.Errorf("compatible server got max_completion_tokens: %v", s.Body)
				}
			},
		},
		{
			name:     "OpenAI itself: default base URL, max_completion_tokens, organization",
			settings: map[string]any{"apiKey": apiTestKey, "model": "gpt-4o-mini", "maxOutputTokens": 50, "organization": "org-1"},
			req:      Request{Question: "hi"},
			wantURL:  "POST https://api.openai.com/v1/chat/completions",
			wantAuth: "Bearer " + apiTestKey,
			check: func(t *testing.T, s apiSeen) {
				if s.Body["max_completion_tokens"] != 50.0 || s.Body["max_tokens"] != nil {
					t.Errorf("body = %v, want max_completion_tokens 50", s.Body)
				}
				if _, ok := s.Body["temperature"]; ok {
					t.Errorf("temperature sent though unset: %v", s.Body)
				}
				if got := s.Header.Get("OpenAI-Organization"); got != "org-1" {
					t.Errorf("OpenAI-Organization = %q", got)
				}
			},
		},
		{
			name:     "GitHub Models with the workflow token",
			settings: map[string]any{"api_key": "${{ GITHUB_TOKEN }}", "model": "openai/gpt-4.1-mini", "base_url": "https://models.github.ai/inference"},
			env:      map[string]string{"GITHUB_TOKEN": "ghs_workflowtoken123"},
			req:      Request{Question: "judge this", SystemPrompt: "You are a judge. Answer with JSON."},
			wantURL:  "POST https://models.github.ai/inference/chat/completions",
			wantAuth: "Bearer ghs_workflowtoken123",
			check: func(t *testing.T, s apiSeen) {
				want := []map[string]any{
					{"role": "system", "content": "You are a judge. Answer with JSON."},
					{"role": "user", "content": "judge this"},
				}
				if diff := cmp.Diff(want, apiMessages(s.Body)); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:     "multi-turn chat is sent as messages",
			settings: map[string]any{"model": "llama3", "base_url": "http://127.0.0.1:11434/v1"},
			req: Request{Question: "@[User]: ...", Chat: []ChatMessage{
				{Role: "system", Content: "[[ ## Guidelines ## ]]\n\nG"},
				{Role: "user", Content: "u1"},
				{Role: "assistant", Content: "a1"},
				{Role: "user", Content: "u2"},
			}, Guidelines: "G"},
			wantURL: "POST http://127.0.0.1:11434/v1/chat/completions",
			check: func(t *testing.T, s apiSeen) {
				want := []map[string]any{
					{"role": "system", "content": "[[ ## Guidelines ## ]]\n\nG"},
					{"role": "user", "content": "u1"},
					{"role": "assistant", "content": "a1"},
					{"role": "user", "content": "u2"},
				}
				if diff := cmp.Diff(want, apiMessages(s.Body)); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
				if h := s.Header.Get("Authorization"); h != "" {
					t.Errorf("Authorization %q sent though no api_key is set", h)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newAPIFake(t, false, apiStep{Status: 200, Body: apiOpenAIOK("4")})
			client, rd := apiRedirectClient(f)
			tg := apiTestTarget(targets.KindOpenAI, tc.settings, tc.env)
			p, warns, err := New(tg, Options{HTTPClient: client})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v %v", err, warns)
			}
			resp, err := p.Invoke(t.Context(), &tc.req)
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if resp.Text != "4" {
				t.Errorf("Text = %q", resp.Text)
			}
			if diff := cmp.Diff([]string{tc.wantURL}, rd.seen()); diff != "" {
				t.Errorf("URLs (-want +got):\n%s", diff)
			}
			s := f.requests()[0]
			if got := s.Header.Get("Authorization"); tc.wantAuth != "" && got != tc.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tc.wantAuth)
			}
			tc.check(t, s)
			if tc.env["GITHUB_TOKEN"] != "" && tg.Redactor.String(tc.env["GITHUB_TOKEN"]) != "***" {
				t.Errorf("resolved token not registered with the redactor")
			}
		})
	}
}

func TestAPISettingErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		kind     string
		settings map[string]any
		env      map[string]string
		wantErr  string
		unsetVar string
	}{
		{"openai needs a key for api.openai.com", targets.KindOpenAI, map[string]any{"model": "m"}, nil, "api_key: required setting is missing", ""},
		{"openai needs a model", targets.KindOpenAI, map[string]any{"api_key": "k1234"}, nil, "model: required setting is missing", ""},
		{"openai base_url must be a URL", targets.KindOpenAI, map[string]any{"model": "m", "base_url": "localhost:8000"}, nil, "want an absolute http(s) URL", ""},
		{"unset key variable", targets.KindAnthropic, map[string]any{"api_key": "${{ ANTHROPIC_KEY }}", "model": "m"}, nil, "ANTHROPIC_KEY is not set", "ANTHROPIC_KEY"},
		{"anthropic needs a model", targets.KindAnthropic, map[string]any{"api_key": "k1234"}, nil, "model: required setting is missing", ""},
		{"thinking budget below the API minimum", targets.KindAnthropic, map[string]any{"api_key": "k1234", "model": "m", "thinkingBudget": 100}, nil, "thinkingBudget: want at least 1024", ""},
		{"temperature out of range", targets.KindGemini, map[string]any{"api_key": "k1234", "temperature": 3}, nil, "temperature: want a number from 0 to 2", ""},
		{"max tokens must be positive", targets.KindGemini, map[string]any{"api_key": "k1234", "maxOutputTokens": 0}, nil, "maxOutputTokens: want a positive whole number", ""},
		{"gemini needs a key", targets.KindGemini, map[string]any{}, nil, "api_key: required setting is missing", ""},
		{"azure needs an endpoint", targets.KindAzure, map[string]any{"api_key": "k1234", "deployment": "d"}, nil, "endpoint: required setting is missing", ""},
		{"azure refuses plain http", targets.KindAzure, map[string]any{"api_key": "k1234", "deployment": "d", "endpoint": "http://127.0.0.1:1"}, nil, "needs an https:// endpoint", ""},
		{"azure needs a deployment", targets.KindAzure, map[string]any{"api_key": "k1234", "resourceName": "res"}, nil, "deployment: required setting is missing", ""},
		{"negative retries", targets.KindOpenAI, map[string]any{"api_key": "k1234", "model": "m", "maxRetries": -1}, nil, "maxRetries: want a whole number from 0 to 100", ""},
		{"bad backoff factor", targets.KindOpenAI, map[string]any{"api_key": "k1234", "model": "m", "retry_backoff_factor": 0.5}, nil, "retry_backoff_factor: want a number from 1 to 100", ""},
		{"negative delay", targets.KindOpenAI, map[string]any{"api_key": "k1234", "model": "m", "initialDelayMs": -5}, nil, "initialDelayMs: want milliseconds", ""},
		{"status code list with junk", targets.KindOpenAI, map[string]any{"api_key": "k1234", "model": "m", "retry_status_codes": []any{429, "soon"}}, nil, `item 2: want an HTTP status code (100-599), got "soon"`, ""},
		{"401 cannot be made retryable", targets.KindOpenAI, map[string]any{"api_key": "k1234", "model": "m", "retryStatusCodes": []any{401}}, nil, "401 is never retried", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := New(apiTestTarget(tc.kind, tc.settings, tc.env), Options{})
			if err == nil {
				t.Fatalf("New succeeded, want error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "targets.yaml:") {
				t.Errorf("error %q does not start with the targets file position", err)
			}
			var uv *targets.UnsetVarError
			if got := errors.As(err, &uv); got != (tc.unsetVar != "") || (got && uv.Var != tc.unsetVar) {
				t.Errorf("targets.UnsetVarError = %v (%v), want var %q", got, uv, tc.unsetVar)
			}
		})
	}
}

func TestAPIUnknownSettingsWarn(t *testing.T) {
	t.Parallel()
	tg := apiTestTarget(targets.KindGemini, map[string]any{"api_key": "k1234", "modle": "x", "maxRetries": 1, "retry_initial_delay_ms": 5,
		"maxDelayMs": 10, "backoffFactor": 2, "retryableStatusCodes": []any{429}}, nil)
	_, warns, err := New(tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Message, `unknown setting "modle"`) {
		t.Errorf("warnings = %v, want one for modle (retry settings are known)", warns)
	}
}
