package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// apiTestKey is the key every fake expects; tests assert it never leaks.
const apiTestKey = "sk-test-SECRET-0123456789"

// apiTestTarget builds a target as targets.yaml would: keys normalized, positions set.
func apiTestTarget(kind string, settings map[string]any, env map[string]string) *targets.Target {
	t := &targets.Target{Name: "t1", Kind: kind, Provider: kind, Pos: suite.Position{File: "targets.yaml", Line: 2, Col: 5},
		File: "targets.yaml", Settings: map[string]*targets.Setting{}, Redactor: &redact.Redactor{},
		Env: func(n string) (string, bool) { v, ok := env[n]; return v, ok }}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		t.Settings[targets.SnakeCase(k)] = &targets.Setting{Key: k, Value: settings[k], Pos: suite.Position{File: "targets.yaml", Line: 3 + i, Col: 5}}
	}
	return t
}

// apiSeen is one request the fake received.
type apiSeen struct {
	Method, Path string
	Query        map[string][]string
	Header       http.Header
	Body         map[string]any
}

// apiStep is one scripted answer.
type apiStep struct {
	Status int
	Header map[string]string
	Body   string
	Hang   bool // wait until the client gives up
}

// apiFake is a loopback server that answers a script of steps (the last one repeats) and
// records every request.
type apiFake struct {
	srv   *httptest.Server
	mu    sync.Mutex
	seen  []apiSeen
	steps []apiStep
}

func newAPIFake(t *testing.T, tls bool, steps ...apiStep) *apiFake {
	t.Helper()
	f := &apiFake{steps: steps}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		n := len(f.seen)
		f.seen = append(f.seen, apiSeen{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body})
		st := f.steps[min(n, len(f.steps)-1)]
		f.mu.Unlock()
		if st.Hang {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		for k, v := range st.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st.Status)
		_, _ = io.WriteString(w, st.Body)
	})
	if tls {
		f.srv = httptest.NewTLSServer(h)
	} else {
		f.srv = httptest.NewServer(h)
	}
	t.Cleanup(f.srv.Close)
	return f
}

func (f *apiFake) requests() []apiSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apiSeen(nil), f.seen...)
}

// apiSleeps is a fake clock for Options.Sleep: it records each delay and returns at once.
type apiSleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *apiSleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *apiSleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// apiSpec describes one API provider's wire format for the shared scenarios.
type apiSpec struct {
	kind string
	tls  bool
	// settings for a target pointed at the fake.
	settings func(url string) map[string]any
	// ok is a success body answering text.
	ok func(text string) string
	// errBody is the provider's error body carrying msg.
	errBody func(status int, msg string) string
	// path is the request path every call must use.
	path string
	// auth returns the credential the request carried.
	auth func(h http.Header) string
	// prompt returns the user text of a recorded request.
	prompt func(body map[string]any) string
}

func apiSpecs() []apiSpec {
	return []apiSpec{
		{
			kind: targets.KindOpenAI,
			settings: func(url string) map[string]any {
				return map[string]any{"api_key": apiTestKey, "model": "gpt-test", "base_url": url + "/v1"}
			},
			ok:      apiOpenAIOK,
			errBody: apiOpenAIErr,
			path:    "/v1/chat/completions",
			auth:    func(h http.Header) string { return strings.TrimPrefix(h.Get("Authorization"), "Bearer ") },
			prompt:  apiOpenAIPrompt,
		},
		{
			kind: targets.KindAzure,
			tls:  true,
			settings: func(url string) map[string]any {
				return map[string]any{"api_key": apiTestKey, "deployment": "dep-1", "endpoint": url}
			},
			ok:      apiOpenAIOK,
			errBody: apiOpenAIErr,
			path:    "/openai/deployments/dep-1/chat/completions",
			auth:    func(h http.Header) string { return h.Get("Api-Key") },
			prompt:  apiOpenAIPrompt,
		},
		{
			kind: targets.KindAnthropic,
			settings: func(url string) map[string]any {
				return map[string]any{"api_key": apiTestKey, "model": "claude-test", "base_url": url}
			},
			ok: func(text string) string {
				return fmt.Sprintf(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",`+
					`"content":[{"type":"text","text":%q}],"stop_reason":"end_turn",`+
					`"usage":{"input_tokens":11,"output_tokens":7,"cache_read_input_tokens":3}}`, text)
			},
			errBody: func(status int, msg string) string {
				return fmt.Sprintf(`{"type":"error","error":{"type":"api_error","message":%q}}`, msg)
			},
			path: "/v1/messages",
			auth: func(h http.Header) string { return strings.TrimPrefix(h.Get("Authorization"), "Bearer ") },
			prompt: func(b map[string]any) string {
				return apiLastUserText(b["messages"], func(m map[string]any) string {
					if s, ok := m["content"].(string); ok {
						return s
					}
					parts, _ := m["content"].([]any)
					var out []string
					for _, p := range parts {
						pm, _ := p.(map[string]any)
						s, _ := pm["text"].(string)
						out = append(out, s)
					}
					return strings.Join(out, "")
				})
			},
		},
		{
			kind: targets.KindGemini,
			settings: func(url string) map[string]any {
				return map[string]any{"api_key": apiTestKey, "base_url": url}
			},
			ok: func(text string) string {
				return fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%q}]},"finishReason":"STOP"}],`+
					`"usageMetadata":{"promptTokenCount":11,"candidatesTokenCount":5,"thoughtsTokenCount":2,"totalTokenCount":18}}`, text)
			},
			errBody: func(status int, msg string) string {
				return fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":"UNAVAILABLE"}}`, status, msg)
			},
			path: "/v1beta/models/gemini-2.5-flash:generateContent",
			auth: func(h http.Header) string { return h.Get("X-Goog-Api-Key") },
			prompt: func(b map[string]any) string {
				contents, _ := b["contents"].([]any)
				if len(contents) == 0 {
					return ""
				}
				c, _ := contents[len(contents)-1].(map[string]any)
				parts, _ := c["parts"].([]any)
				var out []string
				for _, p := range parts {
					pm, _ := p.(map[string]any)
					s, _ := pm["text"].(string)
					out = append(out, s)
				}
				return strings.Join(out, "")
			},
		},
	}
}

func apiOpenAIOK(text string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18,"prompt_tokens_details":{"cached_tokens":3}}}`, text)
}

func apiOpenAIErr(status int, msg string) string {
	return fmt.Sprintf(`{"error":{"message":%q,"type":"server_error","param":null,"code":null}}`, msg)
}

func apiOpenAIPrompt(b map[string]any) string {
	return apiLastUserText(b["messages"], func(m map[string]any) string { s, _ := m["content"].(string); return s })
}

func apiLastUserText(msgs any, text func(map[string]any) string) string {
	list, _ := msgs.([]any)
	for i := len(list) - 1; i >= 0; i-- {
		m, _ := list[i].(map[string]any)
		if m["role"] == "user" {
			return text(m)
		}
	}
	return ""
}

// apiNew builds a provider for spec against fake f with extra settings.
func apiNew(t *testing.T, spec apiSpec, f *apiFake, extra map[string]any, opts Options) Provider {
	t.Helper()
	s := spec.settings(f.srv.URL)
	for k, v := range extra {
		s[k] = v
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = f.srv.Client()
	}
	p, warns, err := New(apiTestTarget(spec.kind, s, nil), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if len(warns) > 0 {
		t.Fatalf("unexpected warnings: %v", warns)
	}
	return p
}

func apiInvoke(t *testing.T, p Provider, question string) (*Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	return p.Invoke(ctx, &Request{EvalID: "case-1", Question: question})
}
