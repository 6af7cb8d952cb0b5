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

	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// claudeFakeKey is the API key the fake Messages API expects from the real Claude Code CLI.
const claudeFakeKey = "sk-ant-claude-fake-SECRET-42"

// claudeFake is a loopback server speaking the Anthropic Messages API as Claude Code uses it:
// POST /v1/messages with stream=true, answered with server-sent events (a JSON body when the
// request does not ask for a stream). reply picks the answer from the request's conversation.
type claudeFake struct {
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []claudeFakeReq
	reply func(body map[string]any) claudeReply
}

type claudeFakeReq struct {
	method, path, apiKey string
	body                 map[string]any
}

// claudeReply is the fake's answer to one Messages request: content blocks with a stop reason
// and usage, or an HTTP error.
type claudeReply struct {
	status     int
	errBody    string
	blocks     []map[string]any
	stopReason string
	in, out    int
	cacheRead  int
}

func newClaudeFake(t *testing.T, reply func(body map[string]any) claudeReply) *claudeFake {
	t.Helper()
	f := &claudeFake{reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.reqs = append(f.reqs, claudeFakeReq{method: r.Method, path: r.URL.Path, apiKey: r.Header.Get("X-Api-Key"), body: body})
		f.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			// Start-up probes and anything else: not part of the Messages API.
			http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`, http.StatusNotFound)
			return
		}
		rep := f.reply(body)
		f.mu.Lock()
		id := fmt.Sprintf("msg_fake_%d", len(f.reqs))
		f.mu.Unlock()
		if rep.status != 0 && rep.status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rep.status)
			_, _ = io.WriteString(w, rep.errBody)
			return
		}
		model, _ := body["model"].(string)
		if stream, _ := body["stream"].(bool); !stream {
			msg := claudeFakeMessage(id, model, rep.blocks, rep.stopReason, claudeFakeUsage(rep.in, rep.out, rep.cacheRead))
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, claudeSSE(id, model, rep))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func claudeFakeUsage(in, out, cacheRead int) map[string]any {
	return map[string]any{"input_tokens": in, "output_tokens": out, "cache_read_input_tokens": cacheRead, "cache_creation_input_tokens": 0}
}

func claudeFakeMessage(id, model string, content []map[string]any, stop any, usage map[string]any) map[string]any {
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
		"stop_reason": stop, "stop_sequence": nil, "usage": usage}
}

// claudeSSE is a streamed Messages response: message_start, each block as start / delta / stop
// (text as text_delta, tool input as input_json_delta), message_delta with the stop reason and
// the output tokens, message_stop.
func claudeSSE(id, model string, rep claudeReply) string {
	var b strings.Builder
	ev := func(e map[string]any) {
		raw, _ := json.Marshal(e)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", e["type"], raw)
	}
	ev(map[string]any{"type": "message_start", "message": claudeFakeMessage(id, model, nil, nil, claudeFakeUsage(rep.in, 1, rep.cacheRead))})
	ev(map[string]any{"type": "ping"})
	for i, blk := range rep.blocks {
		switch blk["type"] {
		case "text":
			ev(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			ev(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": blk["text"]}})
		case "tool_use":
			ev(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use",
				"id": blk["id"], "name": blk["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(blk["input"])
			ev(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		ev(map[string]any{"type": "content_block_stop", "index": i})
	}
	ev(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": rep.stopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": rep.out}})
	ev(map[string]any{"type": "message_stop"})
	return b.String()
}

// claudeText is a final text answer.
func claudeText(text string, in, out, cacheRead int) claudeReply {
	return claudeReply{blocks: []map[string]any{{"type": "text", "text": text}}, stopReason: "end_turn", in: in, out: out, cacheRead: cacheRead}
}

// claudeToolThenAnswer has the agent run `cat prompt.md` with its Bash tool, then answer.
func claudeToolThenAnswer(body map[string]any) claudeReply {
	if results := claudeToolResults(body); len(results) > 0 {
		return claudeText("I read prompt.md. Done.", 1500, 9, 1000)
	}
	if tools, _ := body["tools"].([]any); len(tools) == 0 {
		return claudeText("ok", 10, 1, 0) // a side request of the CLI's, not the agent's turn
	}
	return claudeReply{blocks: []map[string]any{
		{"type": "text", "text": "Let me read the prompt."},
		{"type": "tool_use", "id": "toolu_fake_1", "name": "Bash", "input": map[string]any{"command": "cat prompt.md", "description": "Show the prompt"}},
	}, stopReason: "tool_use", in: 1000, out: 20}
}

// claudeToolResults returns the tool_result blocks of the request's last user message.
func claudeToolResults(body map[string]any) []map[string]any {
	msgs, _ := body["messages"].([]any)
	var out []map[string]any
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != "user" {
			continue
		}
		parts, _ := m["content"].([]any)
		for _, p := range parts {
			if pm, _ := p.(map[string]any); pm["type"] == "tool_result" {
				out = append(out, pm)
			}
		}
		return out
	}
	return nil
}

// claudeUserText returns the text of the user messages of a Messages request.
func claudeUserText(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	var out []string
	for _, it := range msgs {
		m, _ := it.(map[string]any)
		if m["role"] != "user" {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			out = append(out, c)
		case []any:
			for _, p := range c {
				pm, _ := p.(map[string]any)
				if s, ok := pm["text"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return strings.Join(out, "\n")
}

// claudeBinary finds the real Claude Code CLI: $AGENTV_CLAUDE_BIN, else `claude` on PATH.
func claudeBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTV_CLAUDE_BIN"); p != "" {
		return p
	}
	p, err := exec.LookPath("claude")
	if err != nil {
		t.Skip("Claude Code is not installed (npm install --prefix DIR @anthropic-ai/claude-code@2.1.332, then set AGENTV_CLAUDE_BIN)")
	}
	return p
}

// TestClaudeRealCLI runs the real Claude Code CLI through the claude-code provider against a
// loopback fake of the Anthropic Messages API. With AGENTV_RECORD_CLAUDE=1 it also rewrites
// testdata/claude/*.jsonl with the stream the CLI printed (see testdata/claude/README.md).
func TestClaudeRealCLI(t *testing.T) {
	bin := claudeBinary(t)
	t.Parallel()
	type realCase struct {
		name     string
		settings map[string]any
		reply    func(body map[string]any) claudeReply
		want     string // final answer; "" when the run must fail
		wantErr  []string
		check    func(t *testing.T, f *claudeFake, resp *Response)
		dialect  string // the request's; "" is 2.5
	}
	tests := []realCase{
		{
			name:     "answer",
			settings: map[string]any{"bypass_permissions": false, "model": "claude-fake-model"},
			reply:    func(map[string]any) claudeReply { return claudeText("The answer is 42.", 1200, 7, 200) },
			want:     "The answer is 42.",
			check: func(t *testing.T, f *claudeFake, resp *Response) {
				if resp.Usage == nil || resp.Usage.Input != 1400 || resp.Usage.Output != 7 || resp.Usage.Cached == nil || *resp.Usage.Cached != 200 {
					t.Errorf("Usage = %+v, want 1400 in (200 of them cached), 7 out", resp.Usage)
				}
				if resp.CostUSD == nil || *resp.CostUSD < 0 || resp.DurationMS == nil {
					t.Errorf("CostUSD %v, DurationMS %v: want both from the result event", resp.CostUSD, resp.DurationMS)
				}
				body := f.messages()[0]
				if body["model"] != "claude-fake-model" {
					t.Errorf("model = %v, want the target's model", body["model"])
				}
				if !strings.Contains(claudeUserText(body), "[[ ## user_query ## ]]") {
					t.Errorf("the prompt document did not reach the model: %q", claudeUserText(body))
				}
			},
		},
		{
			name: "tool_call",
			// Tools are allowed explicitly, so the test passes as root too (where Claude Code refuses
			// to skip permission prompts).
			settings: map[string]any{"bypass_permissions": false, "args": []any{"--allowedTools", "Bash"}},
			reply:    claudeToolThenAnswer,
			want:     "I read prompt.md. Done.",
			check: func(t *testing.T, f *claudeFake, resp *Response) {
				var results []map[string]any
				for _, b := range f.messages() {
					results = append(results, claudeToolResults(b)...)
				}
				if len(results) != 1 || !strings.Contains(string(codexJSON(results[0]["content"])), "user_query") {
					t.Fatalf("tool results sent to the model = %s, want the output of `cat prompt.md`", codexJSON(results))
				}
				var calls []map[string]any
				for _, m := range resp.OutputMessages {
					var cs []map[string]any
					_ = json.Unmarshal(m.ToolCalls, &cs)
					calls = append(calls, cs...)
				}
				if len(calls) != 1 || calls[0]["tool"] != "Bash" || !strings.Contains(string(codexJSON(calls[0]["input"])), "cat prompt.md") ||
					!strings.Contains(fmt.Sprint(calls[0]["output"]), "user_query") {
					t.Errorf("tool calls = %s, want Bash `cat prompt.md` with its output", codexJSON(calls))
				}
			},
		},
		{
			// A 4.x eval file's case: 4.42.4's flags (--include-partial-messages) and prompt
			// document, system_prompt given to Claude Code as its system prompt.
			name:     "v4_system_prompt",
			settings: map[string]any{"bypass_permissions": false, "system_prompt": "Answer like a pirate."},
			dialect:  suite.Dialect4,
			reply:    func(map[string]any) claudeReply { return claudeText("Arr, 42.", 100, 7, 0) },
			want:     "Arr, 42.",
			check: func(t *testing.T, f *claudeFake, resp *Response) {
				body := f.messages()[0]
				if sys := string(codexJSON(body["system"])); !strings.Contains(sys, "Answer like a pirate.") {
					t.Errorf("system prompt sent: %s, want the target's system_prompt", sys)
				}
				if text := claudeUserText(body); !strings.Contains(text, "[[ ## user_query ## ]]\n\nWhat is six times seven?") ||
					strings.Contains(text, "pirate") || strings.Contains(text, claudeDefaultSystem) {
					t.Errorf("prompt document sent: %q, want 4.42.4's, without instructions", text)
				}
			},
		},
		{
			name:     "max_turns",
			settings: map[string]any{"bypass_permissions": false, "max_turns": 1, "args": []any{"--allowedTools", "Bash"}},
			reply:    claudeToolThenAnswer,
			wantErr:  []string{"claude exited with code 1: Reached maximum number of turns (1)", `stdout: "…`, `\"type\":\"result\"`},
		},
		{
			name:     "unauthorized",
			settings: map[string]any{"bypass_permissions": false},
			reply: func(map[string]any) claudeReply {
				return claudeReply{status: 401, errBody: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + claudeFakeKey + `"}}`}
			},
			wantErr: []string{"claude exited with code 1", "401", "logs: ", ".jsonl", ".stderr.log"},
		},
	}
	// By default the agent may use its tools without asking; Claude Code refuses that as root.
	defaultCase := realCase{name: "default_permissions", settings: map[string]any{},
		reply: func(map[string]any) claudeReply { return claudeText("The answer is 42.", 100, 7, 0) }, want: "The answer is 42."}
	if os.Geteuid() == 0 {
		defaultCase.want, defaultCase.wantErr = "", []string{"claude exited with code 1", "bypass_permissions: false"}
	}
	tests = append(tests, defaultCase)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newClaudeFake(t, tc.reply)
			logDir := t.TempDir()
			settings := map[string]any{"executable": bin, "log_dir": logDir, "timeoutSeconds": 120}
			for k, v := range tc.settings {
				settings[k] = v
			}
			tg := apiTestTarget(targets.KindClaude, settings, nil)
			env := append(os.Environ(), "HOME="+t.TempDir(), "ANTHROPIC_BASE_URL="+f.srv.URL, "ANTHROPIC_API_KEY="+claudeFakeKey,
				"CLAUDE_CODE_MAX_RETRIES=0", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
			p, warns, err := New(tg, Options{Env: env})
			if err != nil || len(warns) > 0 {
				t.Fatalf("New: %v %v", err, warns)
			}
			req := &Request{EvalID: "claude-" + tc.name, Question: "What is six times seven?", Agent: agentRulesOf(tc.dialect)}
			resp, err := p.Invoke(t.Context(), req)
			if tc.name != defaultCase.name && tc.dialect == "" { // its outcome depends on the user running the tests; 4.x logs are not streams
				claudeRecord(t, tc.name, logDir)
			}
			for _, r := range f.messageReqs() {
				if r.apiKey != claudeFakeKey {
					t.Errorf("claude sent x-api-key %q, want ANTHROPIC_API_KEY", r.apiKey)
				}
			}
			// The key came from the environment only: the provider must still mask it.
			logs, _ := filepath.Glob(filepath.Join(logDir, "*"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				if strings.Contains(string(b), claudeFakeKey) {
					t.Errorf("log %s leaks the key", l)
				}
			}
			if tc.want == "" {
				var ae *AgentError
				if !errors.As(err, &ae) {
					t.Fatalf("error %v, want *AgentError", err)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if strings.Contains(err.Error(), claudeFakeKey) {
					t.Errorf("error leaks the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if resp.Text != tc.want {
				t.Errorf("Text = %q, want %q", resp.Text, tc.want)
			}
			if got := resp.OutputMessages[len(resp.OutputMessages)-1].Content.Text; got != tc.want {
				t.Errorf("last output message = %q, want the answer", got)
			}
			if tc.check != nil {
				tc.check(t, f, resp)
			}
		})
	}
}

// messageReqs returns the Messages API requests the fake received.
func (f *claudeFake) messageReqs() []claudeFakeReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []claudeFakeReq
	for _, r := range f.reqs {
		if r.method == http.MethodPost && r.path == "/v1/messages" {
			out = append(out, r)
		}
	}
	return out
}

// messages returns the bodies of the agent's turns (requests offering tools).
func (f *claudeFake) messages() []map[string]any {
	var out []map[string]any
	for _, r := range f.messageReqs() {
		if tools, _ := r.body["tools"].([]any); len(tools) > 0 {
			out = append(out, r.body)
		}
	}
	return out
}

// claudeRecord copies the stream the real CLI printed into testdata/claude when recording.
func claudeRecord(t *testing.T, name, logDir string) {
	if os.Getenv("AGENTV_RECORD_CLAUDE") != "1" {
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
	if err := os.WriteFile(filepath.Join("testdata", "claude", name+".jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
