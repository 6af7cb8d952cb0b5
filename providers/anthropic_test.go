package providers

import (
	"testing"

	"github.com/agentv/action/targets"

	"github.com/google/go-cmp/cmp"
)

func TestAnthropicRequest(t *testing.T) {
	t.Parallel()
	const answer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[` +
		`{"type":"thinking","thinking":"let me think","signature":"sig"},{"type":"text","text":"Part one."},` +
		`{"type":"text","text":"Part two."}],"stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":9}}`
	tests := []struct {
		name     string
		settings map[string]any
		req      Request
		redirect bool
		check    func(t *testing.T, s apiSeen)
	}{
		{
			name:     "defaults: max_tokens 4096, default system, no thinking",
			settings: map[string]any{"model": "claude-test"},
			req:      Request{Question: "hi"},
			check: func(t *testing.T, s apiSeen) {
				want := map[string]any{
					"model":      "claude-test",
					"max_tokens": 4096.0,
					"system":     []any{map[string]any{"type": "text", "text": apiDefaultSystem}},
					"messages": []any{map[string]any{"role": "user",
						"content": []any{map[string]any{"type": "text", "text": "hi"}}}},
				}
				if diff := cmp.Diff(want, s.Body); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "thinking budget, temperature, judge system prompt, camelCase",
			settings: map[string]any{"model": "claude-test", "thinkingBudget": 2048, "maxOutputTokens": 500,
				"temperature": 1},
			req: Request{Question: "grade", SystemPrompt: "Return JSON."},
			check: func(t *testing.T, s apiSeen) {
				if s.Body["max_tokens"] != 2548.0 {
					t.Errorf("max_tokens = %v, want 500 + 2048", s.Body["max_tokens"])
				}
				if diff := cmp.Diff(map[string]any{"type": "enabled", "budget_tokens": 2048.0}, s.Body["thinking"]); diff != "" {
					t.Errorf("thinking (-want +got):\n%s", diff)
				}
				if s.Body["temperature"] != 1.0 {
					t.Errorf("temperature = %v", s.Body["temperature"])
				}
				if diff := cmp.Diff([]any{map[string]any{"type": "text", "text": "Return JSON."}}, s.Body["system"]); diff != "" {
					t.Errorf("system (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:     "multi-turn chat",
			settings: map[string]any{"model": "claude-test"},
			req: Request{Chat: []ChatMessage{{Role: "system", Content: "Sys"}, {Role: "user", Content: "u1"},
				{Role: "assistant", Content: "a1"}, {Role: "user", Content: "u2"}}},
			check: func(t *testing.T, s apiSeen) {
				msg := func(role, text string) any {
					return map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": text}}}
				}
				want := []any{msg("user", "u1"), msg("assistant", "a1"), msg("user", "u2")}
				if diff := cmp.Diff(want, s.Body["messages"]); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]any{map[string]any{"type": "text", "text": "Sys"}}, s.Body["system"]); diff != "" {
					t.Errorf("system (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:     "no base_url: api.anthropic.com",
			settings: map[string]any{"model": "claude-test"},
			req:      Request{Question: "hi"},
			redirect: true,
			check:    func(t *testing.T, s apiSeen) {},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newAPIFake(t, false, apiStep{Status: 200, Body: answer})
			tc.settings["api_key"] = apiTestKey
			client := f.srv.Client()
			var rd *apiRedirect
			if tc.redirect {
				client, rd = apiRedirectClient(f)
			} else {
				tc.settings["base_url"] = f.srv.URL
			}
			p, warns, err := New(apiTestTarget(targets.KindAnthropic, tc.settings, nil), Options{HTTPClient: client})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v %v", err, warns)
			}
			resp, err := p.Invoke(t.Context(), &tc.req)
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if resp.Text != "Part one.\n\nPart two." {
				t.Errorf("Text = %q, want the text blocks without the thinking block", resp.Text)
			}
			if resp.Usage == nil || resp.Usage.Input != 20 || resp.Usage.Output != 9 {
				t.Errorf("Usage = %+v", resp.Usage)
			}
			s := f.requests()[0]
			if s.Path != "/v1/messages" || s.Header.Get("Authorization") != "Bearer "+apiTestKey ||
				s.Header.Get("Anthropic-Version") == "" {
				t.Errorf("request %s with headers %v: want /v1/messages, bearer key, anthropic-version", s.Path, s.Header)
			}
			if rd != nil {
				if diff := cmp.Diff([]string{"POST https://api.anthropic.com/v1/messages"}, rd.seen()); diff != "" {
					t.Errorf("URLs (-want +got):\n%s", diff)
				}
			}
			tc.check(t, s)
		})
	}
}
