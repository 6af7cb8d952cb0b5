package providers

import (
	"testing"

	"github.com/agentv/action/targets"

	"github.com/google/go-cmp/cmp"
)

func TestGeminiRequest(t *testing.T) {
	t.Parallel()
	const answer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"hidden","thought":true},` +
		`{"text":"Visible "},{"text":"answer."}]},"finishReason":"STOP"}],` +
		`"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":4,"thoughtsTokenCount":6,"cachedContentTokenCount":8}}`
	tests := []struct {
		name     string
		settings map[string]any
		req      Request
		redirect bool
		wantURL  string
		check    func(t *testing.T, s apiSeen)
	}{
		{
			name:     "default model, system instruction, generation config",
			settings: map[string]any{"temperature": 0.5, "max_output_tokens": 256},
			req:      Request{Question: "hi", Guidelines: "G1"},
			check: func(t *testing.T, s apiSeen) {
				if s.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
					t.Errorf("path = %q", s.Path)
				}
				want := map[string]any{
					"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}},
					"systemInstruction": map[string]any{"role": "user",
						"parts": []any{map[string]any{"text": apiDefaultSystem + "\n\n[[ ## Guidelines ## ]]\n\nG1"}}},
					"generationConfig": map[string]any{"temperature": 0.5, "maxOutputTokens": 256.0},
				}
				if diff := cmp.Diff(want, s.Body); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:     "explicit model and multi-turn chat with model role",
			settings: map[string]any{"model": "gemini-2.5-pro"},
			req:      Request{Chat: []ChatMessage{{Role: "user", Content: "u1"}, {Role: "assistant", Content: "a1"}, {Role: "user", Content: "u2"}}},
			check: func(t *testing.T, s apiSeen) {
				if s.Path != "/v1beta/models/gemini-2.5-pro:generateContent" {
					t.Errorf("path = %q", s.Path)
				}
				turn := func(role, text string) any {
					return map[string]any{"role": role, "parts": []any{map[string]any{"text": text}}}
				}
				if diff := cmp.Diff([]any{turn("user", "u1"), turn("model", "a1"), turn("user", "u2")}, s.Body["contents"]); diff != "" {
					t.Errorf("contents (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:     "no base_url: the Gemini API host",
			settings: map[string]any{},
			req:      Request{Question: "hi"},
			redirect: true,
			wantURL:  "POST https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
			check:    func(t *testing.T, s apiSeen) {},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newAPIFake(t, false, apiStep{Status: 200, Body: answer})
			tc.settings["apiKey"] = apiTestKey
			client := f.srv.Client()
			var rd *apiRedirect
			if tc.redirect {
				client, rd = apiRedirectClient(f)
			} else {
				tc.settings["baseUrl"] = f.srv.URL
			}
			p, warns, err := New(apiTestTarget(targets.KindGemini, tc.settings, nil), Options{HTTPClient: client})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v %v", err, warns)
			}
			resp, err := p.Invoke(t.Context(), &tc.req)
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if resp.Text != "Visible answer." {
				t.Errorf("Text = %q, want the non-thought parts", resp.Text)
			}
			if resp.Usage == nil || resp.Usage.Input != 30 || resp.Usage.Output != 10 || resp.Usage.Cached == nil || *resp.Usage.Cached != 8 {
				t.Errorf("Usage = %+v, want 30 in, 4+6 out, 8 cached", resp.Usage)
			}
			s := f.requests()[0]
			if s.Header.Get("X-Goog-Api-Key") != apiTestKey {
				t.Errorf("x-goog-api-key = %q", s.Header.Get("X-Goog-Api-Key"))
			}
			if len(s.Query["key"]) > 0 {
				t.Errorf("key sent in the URL query: %v", s.Query)
			}
			if rd != nil {
				if diff := cmp.Diff([]string{tc.wantURL}, rd.seen()); diff != "" {
					t.Errorf("URLs (-want +got):\n%s", diff)
				}
			}
			tc.check(t, s)
		})
	}
}
