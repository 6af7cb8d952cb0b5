package providers

import (
	"strings"
	"testing"

	"github.com/agentv/action/targets"

	"github.com/google/go-cmp/cmp"
)

func TestAzureEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "https://res1.openai.azure.com", want: "https://res1.openai.azure.com"},
		{in: "https://res1.openai.azure.com/", want: "https://res1.openai.azure.com"},
		{in: "https://res1.openai.azure.com/openai", want: "https://res1.openai.azure.com"},
		{in: "https://res1.openai.azure.com/openai/?x=1", want: "https://res1.openai.azure.com"},
		{in: "https://res1.openai.azure.com/openai/v1", want: "https://res1.openai.azure.com"}, // AZURE_OPENAI_BASE_URL's form
		{in: "https://gw.example.com/azure/", want: "https://gw.example.com/azure"},
		{in: "https://gw.example.com/v1", want: "https://gw.example.com/v1"},
		{in: "res1", want: "https://res1.openai.azure.com"},
		{in: "res1.openai.azure.com", want: "https://res1.openai.azure.com"},
		{in: "http://res1.openai.azure.com", wantErr: "needs an https:// endpoint"},
		{in: "not a name!", wantErr: "want https://NAME.openai.azure.com or a resource name"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			tg := apiTestTarget(targets.KindAzure, map[string]any{"endpoint": tc.in}, nil)
			got, err := apiAzureEndpoint(tg, tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("= %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestAzureRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings func(url string) map[string]any
		env      map[string]string
		redirect bool
		wantURL  string
		check    func(t *testing.T, s apiSeen)
	}{
		{
			name: "endpoint URL, default api version",
			settings: func(url string) map[string]any {
				return map[string]any{"endpoint": url + "/openai/", "deployment": "gpt4o-prod", "api_key": apiTestKey,
					"temperature": 0, "max_tokens": 64}
			},
			check: func(t *testing.T, s apiSeen) {
				if s.Path != "/openai/deployments/gpt4o-prod/chat/completions" {
					t.Errorf("path = %q", s.Path)
				}
				if diff := cmp.Diff([]string{"2024-10-01-preview"}, s.Query["api-version"]); diff != "" {
					t.Errorf("api-version (-want +got):\n%s", diff)
				}
				if s.Body["temperature"] != 0.0 || s.Body["max_completion_tokens"] != 64.0 {
					t.Errorf("body = %v, want temperature 0 and max_completion_tokens 64", s.Body)
				}
			},
		},
		{
			name: "resource name, camelCase keys, env references, explicit version",
			settings: func(string) map[string]any {
				return map[string]any{"resourceName": "${{ AZ_RES }}", "deploymentName": "${{ AZ_DEP }}",
					"apiKey": "${{ AZ_KEY }}", "apiVersion": "api-version=2025-01-01-preview", "maxOutputTokens": 10}
			},
			env:      map[string]string{"AZ_RES": "contoso", "AZ_DEP": "mini", "AZ_KEY": apiTestKey},
			redirect: true,
			wantURL:  "POST https://contoso.openai.azure.com/openai/deployments/mini/chat/completions?api-version=2025-01-01-preview",
			check: func(t *testing.T, s apiSeen) {
				if s.Path != "/openai/deployments/mini/chat/completions" {
					t.Errorf("path = %q", s.Path)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newAPIFake(t, true, apiStep{Status: 200, Body: apiOpenAIOK("ok")})
			client := f.srv.Client()
			var rd *apiRedirect
			if tc.redirect {
				client, rd = apiRedirectClient(f)
			}
			p, warns, err := New(apiTestTarget(targets.KindAzure, tc.settings(f.srv.URL), tc.env), Options{HTTPClient: client})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v %v", err, warns)
			}
			resp, err := p.Invoke(t.Context(), &Request{Question: "hello"})
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if resp.Text != "ok" {
				t.Errorf("Text = %q", resp.Text)
			}
			if rd != nil {
				if diff := cmp.Diff([]string{tc.wantURL}, rd.seen()); diff != "" {
					t.Errorf("URLs (-want +got):\n%s", diff)
				}
			}
			s := f.requests()[0]
			if s.Header.Get("Api-Key") != apiTestKey || s.Header.Get("Authorization") != "" {
				t.Errorf("auth headers: api-key %q, authorization %q; want the key in api-key only",
					s.Header.Get("Api-Key"), s.Header.Get("Authorization"))
			}
			want := []map[string]any{{"role": "system", "content": apiDefaultSystem}, {"role": "user", "content": "hello"}}
			if diff := cmp.Diff(want, apiMessages(s.Body)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			tc.check(t, s)
		})
	}
}
