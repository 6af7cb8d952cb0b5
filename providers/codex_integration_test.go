package providers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentv/action/targets"
)

// codexFakeKey is the key the fake Responses server expects from the real Codex CLI.
const codexFakeKey = "sk-codex-fake-SECRET-42"

// codexFake is a loopback server speaking the OpenAI Responses API as the Codex CLI uses it:
// POST /v1/responses with stream=true, answered with server-sent events.
type codexFake struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
}

// codexTurn is the fake's answer to one request: an SSE body, or an HTTP error.
type codexTurn struct {
	status int
	body   string
}

func newCodexFake(t *testing.T, turns ...codexTurn) *codexFake {
	t.Helper()
	f := &codexFake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, body)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		if r.URL.Path != "/v1/responses" || n >= len(turns) {
			http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusNotFound)
			return
		}
		tr := turns[n]
		if tr.status != 0 && tr.status != 200 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tr.status)
			_, _ = io.WriteString(w, tr.body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, tr.body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func codexSSE(events ...map[string]any) string {
	var b strings.Builder
	for _, e := range events {
		raw, _ := json.Marshal(e)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", e["type"], raw)
	}
	return b.String()
}

// codexRespond is a complete streamed response whose output is items.
func codexRespond(id string, usage map[string]any, items ...map[string]any) codexTurn {
	resp := map[string]any{"id": id, "object": "response", "model": "fake-model", "status": "in_progress", "output": []any{}}
	events := []map[string]any{{"type": "response.created", "response": resp}}
	for i, it := range items {
		events = append(events, map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	done := map[string]any{"id": id, "object": "response", "model": "fake-model", "status": "completed", "output": items, "usage": usage}
	events = append(events, map[string]any{"type": "response.completed", "response": done})
	return codexTurn{body: codexSSE(events...)}
}

func codexMessage(id, text string) map[string]any {
	return map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func codexUsageOf(in, cached, out int) map[string]any {
	return map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": cached},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out}
}

// codexBinary finds the real Codex CLI: $AGENTV_CODEX_BIN, else `codex` on PATH.
func codexBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTV_CODEX_BIN"); p != "" {
		return p
	}
	p, err := exec.LookPath("codex")
	if err != nil {
		t.Skip("the Codex CLI is not installed (npm install --prefix DIR @openai/codex, then set AGENTV_CODEX_BIN)")
	}
	return p
}

// TestCodexRealCLI runs the real Codex CLI through the codex provider against a loopback fake
// of the Responses API. With AGENTV_RECORD_CODEX=1 it also rewrites testdata/codex/*.jsonl with
// the stream the CLI printed (see testdata/codex/README.md).
func TestCodexRealCLI(t *testing.T) {
	bin := codexBinary(t)
	t.Parallel()
	tests := []struct {
		name    string
		turns   []codexTurn
		want    string // final answer; "" when the run must fail
		wantErr []string
		check   func(t *testing.T, f *codexFake, resp *Response)
	}{
		{
			name:  "answer",
			turns: []codexTurn{codexRespond("resp_1", codexUsageOf(1200, 200, 7), codexMessage("msg_1", "The answer is 42."))},
			want:  "The answer is 42.",
			check: func(t *testing.T, f *codexFake, resp *Response) {
				if resp.Usage == nil || resp.Usage.Input != 1200 || resp.Usage.Output != 7 || resp.Usage.Cached == nil || *resp.Usage.Cached != 200 {
					t.Errorf("Usage = %+v, want 1200 in (200 cached), 7 out", resp.Usage)
				}
				if !strings.Contains(codexUserInput(f.bodies[0]), "[[ ## user_query ## ]]") {
					t.Errorf("the prompt document did not reach the model: %q", codexUserInput(f.bodies[0]))
				}
			},
		},
		{
			name: "tool_call",
			turns: []codexTurn{
				codexRespond("resp_1", codexUsageOf(1000, 0, 20), map[string]any{"type": "function_call", "id": "fc_1",
					"call_id": "call_1", "name": "exec_command", "arguments": `{"cmd":"cat prompt.md"}`, "status": "completed"}),
				codexRespond("resp_2", codexUsageOf(1500, 1000, 9), codexMessage("msg_2", "I read prompt.md. Done.")),
			},
			want: "I read prompt.md. Done.",
			check: func(t *testing.T, f *codexFake, resp *Response) {
				if len(f.bodies) != 2 {
					t.Fatalf("fake saw %d requests, want 2 (tool call, then answer)", len(f.bodies))
				}
				if !strings.Contains(string(codexJSON(f.bodies[1]["input"])), "function_call_output") {
					t.Errorf("second request carries no function_call_output")
				}
				if resp.Usage == nil || resp.Usage.Input != 2500 || resp.Usage.Output != 29 {
					t.Errorf("Usage = %+v, want the sum of both responses (2500 in, 29 out)", resp.Usage)
				}
				if len(resp.OutputMessages) != 1 || !strings.Contains(string(resp.OutputMessages[0].ToolCalls), "cat prompt.md") {
					t.Errorf("tool calls = %s, want the command the agent ran", resp.OutputMessages[0].ToolCalls)
				}
			},
		},
		{
			name:    "unauthorized",
			turns:   []codexTurn{{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + codexFakeKey + `","type":"invalid_request_error"}}`}},
			wantErr: []string{"codex exited with code 1", "logs: ", ".jsonl", ".stderr.log"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCodexFake(t, tc.turns...)
			home := t.TempDir()
			config := fmt.Sprintf(`model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "AGENTV_FAKE_CODEX_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, f.srv.URL)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			logDir := t.TempDir()
			tg := apiTestTarget(targets.KindCodex, map[string]any{
				"executable": bin,
				// An args item from the environment (a whole-value reference), as the targets file allows.
				"args":           []any{"-c", "${{ CODEX_MODEL_OVERRIDE }}"},
				"log_dir":        logDir,
				"timeoutSeconds": 120,
			}, map[string]string{"CODEX_MODEL_OVERRIDE": `model="fake-model"`})
			tg.Redactor.Add(codexFakeKey)
			env := append(os.Environ(), "CODEX_HOME="+home, "AGENTV_FAKE_CODEX_KEY="+codexFakeKey)
			p, warns, err := New(tg, Options{Env: env})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v %v", err, warns)
			}
			req := &Request{EvalID: "codex-" + tc.name, Question: "What is six times seven?"}
			resp, err := p.Invoke(t.Context(), req)
			codexRecord(t, tc.name, logDir)
			for _, a := range f.auth {
				if a != "Bearer "+codexFakeKey {
					t.Errorf("codex sent Authorization %q, want the key from env_key", a)
				}
			}
			if tc.want == "" {
				var ce *AgentError
				if !errors.As(err, &ce) {
					t.Fatalf("error %v, want *AgentError", err)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if strings.Contains(err.Error(), codexFakeKey) {
					t.Errorf("error leaks the key: %v", err)
				}
				for _, l := range ce.Logs {
					b, _ := os.ReadFile(l)
					if strings.Contains(string(b), codexFakeKey) {
						t.Errorf("log %s leaks the key", l)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if resp.Text != tc.want {
				t.Errorf("Text = %q, want %q", resp.Text, tc.want)
			}
			if tc.check != nil {
				tc.check(t, f, resp)
			}
		})
	}
}

// codexRecord copies the stream the real CLI printed into testdata/codex when recording.
func codexRecord(t *testing.T, name, logDir string) {
	if os.Getenv("AGENTV_RECORD_CODEX") != "1" {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(logDir, "*.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("recording: want one stream log in %s, found %v", logDir, matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "codex", name+".jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func codexJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// codexUserInput returns the text of the user messages of a Responses request.
func codexUserInput(body map[string]any) string {
	items, _ := body["input"].([]any)
	var out []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m["role"] != "user" {
			continue
		}
		parts, _ := m["content"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if s, ok := pm["text"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "\n")
}
