package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// chatServer speaks the OpenAI Chat Completions wire format: it answers "re: <last user
// message>" and keeps the messages of every request.
type chatServer struct {
	mu   sync.Mutex
	seen [][]string // per request: "role: content" of each message
	bad  []string
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	raw, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || r.URL.Path != "/v1/chat/completions" || len(body.Messages) == 0 {
		s.bad = append(s.bad, fmt.Sprintf("%s %s: %v %.200s", r.Method, r.URL.Path, err, raw))
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	var msgs []string
	for _, m := range body.Messages {
		msgs = append(msgs, m.Role+": "+m.Content)
	}
	s.seen = append(s.seen, msgs)
	last := body.Messages[len(body.Messages)-1].Content
	resp, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "fake-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "re: " + last}}},
		"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(resp)
}

// TestV4ConversationHistory checks the chat messages an OpenAI-compatible target receives on
// each turn, against a loopback server: the test's input, then each earlier turn's input and
// the target's own answer; with window_size 1, the system message and the last two others.
// AgentV 4.42.4, run on this suite against the same kind of server, sent exactly these
// messages.
func TestV4ConversationHistory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	srv := &chatServer{}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	opening := `    input:
      - role: system
        content: Be brief.
      - role: user
        content: Context here.
    turns:
      - input: one
        expected_output: not sent
        assertions: [{type: contains, value: "re: one"}]
      - input: two
        assertions: [{type: contains, value: "re: two"}]
      - input: three
        assertions: [{type: contains, value: "re: three"}]
`
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": fmt.Sprintf(`targets:
  - name: default
    provider: openai
    base_url: %s/v1
    api_key: ${{ CONV_KEY }}
    model: fake-model
`, ts.URL),
		"hist.eval.yaml": "tests:\n  - id: full\n    mode: conversation\n" + opening +
			"  - id: windowed\n    mode: conversation\n    window_size: 1\n" + opening,
	})
	res := agentv(t, dir, []string{"CONV_KEY=sk-conv-test"}, "eval", "hist.eval.yaml", "--workers", "1")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, b := range srv.bad {
		t.Errorf("server: %s", b)
	}
	sys, ctx := "system: Be brief.", "user: Context here."
	want := [][]string{
		{sys, ctx, "user: one"},
		{sys, ctx, "user: one", "assistant: re: one", "user: two"},
		{sys, ctx, "user: one", "assistant: re: one", "user: two", "assistant: re: two", "user: three"},
		{sys, ctx, "user: one"},
		{sys, "assistant: re: one", "user: two"},
		{sys, "assistant: re: two", "user: three"},
	}
	if len(srv.seen) != len(want) {
		t.Fatalf("%d requests, want %d: %q", len(srv.seen), len(want), srv.seen)
	}
	for i := range want {
		if got := strings.Join(srv.seen[i], " | "); got != strings.Join(want[i], " | ") {
			t.Errorf("request %d sent\n  %s\nwant\n  %s", i+1, got, strings.Join(want[i], " | "))
		}
	}
}
