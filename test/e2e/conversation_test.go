package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// convSuite is an AgentV 4.x file of conversation tests, scored with a mock target answering
// "The answer is 42." and a mock judge answering 0.75.
const convSuite = `name: conv-e2e
tests:
  - id: mean-default
    mode: conversation
    input: You are helpful.
    turns:
      - input: Hello
        assertions:
          - type: contains
            value: "42"
      - input: Second
        assertions:
          - type: contains
            value: nope
  - id: min-agg
    mode: conversation
    aggregation: min
    input: sys
    turns:
      - input: a
        assertions: [{type: contains, value: "42"}]
      - input: b
        assertions: [{type: contains, value: nope}]
  - id: max-agg
    mode: conversation
    aggregation: max
    input: sys
    turns:
      - input: a
        assertions: [{type: contains, value: "42"}]
      - input: b
        assertions: [{type: contains, value: nope}]
  - id: stop-first
    mode: conversation
    on_turn_failure: stop
    input: sys
    turns:
      - input: a
        assertions: [{type: contains, value: nope}]
      - input: b
        assertions: [{type: contains, value: "42"}]
      - input: c
  - id: stop-later-max
    mode: conversation
    on_turn_failure: stop
    aggregation: max
    input: sys
    turns:
      - input: a
        assertions: [{type: contains, value: "42"}]
      - input: b
        assertions: [{type: contains, value: nope}]
      - input: c
  - id: transcript
    mode: conversation
    input: sys
    vars: {who: Ada}
    assertions:
      - type: contains
        value: "user: hi Ada"
      - type: regex
        value: "assistant: The answer is 42\\.\\n\\nuser: bye"
    turns:
      - input: hi {{who}}
        assertions: [{type: contains, value: "42"}]
      - input: bye
  - id: transcript-fails-min
    mode: conversation
    aggregation: min
    input: sys
    assertions:
      - type: contains
        value: nope
    turns:
      - input: a
  - id: judged-turn
    mode: conversation
    criteria: Answers politely
    input: sys
    turns:
      - input: a
        expected_output: The answer is 42.
      - input: b
  - id: weighted-turn
    mode: conversation
    input: sys
    turns:
      - input: a
        assertions:
          - type: contains
            value: "42"
            weight: 3
          - type: contains
            value: nope
      - input: b
        assertions:
          - type: equals
            value: The answer is 42.
`

// TestV4Conversation runs conversation tests through the binary. The expected scores are what
// AgentV 4.42.4 gave on this same suite and targets (mock target, mock judge at 0.75): each
// turn scores its own assertions (1 with none), the test's assertions score the transcript as
// one more score, and mean / min / max combine them; with on_turn_failure: stop the turns after
// the failing one score 0. The per-turn entries, the turns that were not sent and a report
// re-rendered from the results must show which turn failed.
func TestV4Conversation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: The answer is 42.
    grader_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.75, "hits": ["states 42"], "misses": ["no reasoning"], "reasoning": "mostly right"}'
`,
		"evals/conv.eval.yaml": convSuite,
	})
	res := agentv(t, dir, nil, "eval", "evals/conv.eval.yaml")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]struct {
		score   float64
		entries string // name:score of each evaluator_results entry
	}{
		"mean-default":         {0.5, "turn-1:1 turn-2:0"},
		"min-agg":              {0, "turn-1:1 turn-2:0"},
		"max-agg":              {1, "turn-1:1 turn-2:0"},
		"stop-first":           {0, "turn-1:0 turn-2:0 turn-3:0"},
		"stop-later-max":       {1, "turn-1:1 turn-2:0 turn-3:0"},
		"transcript":           {1, "turn-1:1 turn-2:1 conversation:1"},
		"transcript-fails-min": {0, "turn-1:1 conversation:0"},
		"judged-turn":          {0.875, "turn-1:0.75 turn-2:1"},
		"weighted-turn":        {0.875, "turn-1:0.75 turn-2:1"},
	}
	got := res.byID()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(got), len(want), res.stdout)
	}
	for id, w := range want {
		r := got[id]
		if r == nil {
			t.Errorf("no record for %s", id)
			continue
		}
		var entries []string
		for _, e := range r.EvaluatorResults {
			entries = append(entries, fmt.Sprintf("%s:%g", e.Name, e.Score))
		}
		if r.Score != w.score || strings.Join(entries, " ") != w.entries {
			t.Errorf("%s: score %v entries %q, want %v %q", id, r.Score, entries, w.score, w.entries)
		}
	}
	stop := got["stop-first"]
	if stop == nil || len(stop.Turns) != 3 || stop.Turns[0].Answer != "The answer is 42." ||
		stop.Turns[1].Verdict != "not_sent" || stop.Turns[2].Verdict != "not_sent" || stop.Turns[1].Answer != "" {
		t.Errorf("stop-first turns: %+v", stop)
	}
	if console := res.stdout + res.stderr; !strings.Contains(console, `conv-e2e/mean-default (`) ||
		!strings.Contains(console, `turn-2: Output does not contain "nope"`) {
		t.Errorf("the console does not say which turn failed:\n%s", console)
	}

	// A report re-rendered from the results file names the failing turn and the unsent ones.
	out := t.TempDir()
	rep := agentv(t, dir, nil, "report", "--results", filepath.Join(res.outDir, "results.jsonl"), "--out-dir", out)
	if rep.code != 1 {
		t.Fatalf("report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"- turn-2 (turn): 0.000 skip", "miss: not sent: turn 1 failed and on_turn_failure is stop",
		"- turn-2 (turn): 0.000 fail", "- contains-nope (contains): 0.000 fail"} {
		if !strings.Contains(string(junit), s) {
			t.Errorf("junit.xml lacks %q", s)
		}
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "turn-1: Output does not contain") {
		t.Errorf("summary.md does not say which turn failed:\n%s", summary)
	}
}

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

// TestV4ConversationValidate checks that `agentv validate` reports a malformed conversation test
// at its line and column and exits 2.
func TestV4ConversationValidate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"targets.yaml": mockTargets, "c.eval.yaml": `tests:
  - id: c
    mode: conversation
    aggregation: median
    input: hi
    turns:
      - input: a
      - expected_output: b
`})
	res := agentv(t, dir, nil, "validate", "c.eval.yaml")
	out := res.stdout + res.stderr
	for _, s := range []string{`c.eval.yaml:4:18: "aggregation" must be one of mean, min, max, got "median"`,
		`c.eval.yaml:8:9: turn 2 has no "input"`} {
		if !strings.Contains(out, s) {
			t.Errorf("validate output lacks %q:\n%s", s, out)
		}
	}
	if res.code != 2 {
		t.Errorf("exit %d, want 2", res.code)
	}
}

// TestV4ConversationCliTarget runs a conversation on a cli target (a real subprocess reading
// {PROMPT_FILE} and {EVAL_ID}): as in AgentV 4.42.4 each turn's command gets the turn's input
// alone, its case id `id/turn-N`; unlike 4.42.4, whose prompt file for such an id lands in a
// folder that does not exist, every turn runs. A turn the agent fails errors the test even
// though aggregation: max would let the other turn carry it.
func TestV4ConversationCliTarget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// Logs each call's id and prompt; fails on a prompt holding FAIL.
		"agent.sh": `#!/bin/sh
prompt=$(cat "$1")
printf '%s: %s\n' "$2" "$prompt" >> "$(dirname "$0")/calls.log"
case "$prompt" in *FAIL*) echo "agent crashed" >&2; exit 3;; esac
printf 'got: %s' "$prompt" > "$3"
`,
		".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: sh ../agent.sh {PROMPT_FILE} {EVAL_ID} {OUTPUT_FILE}
`,
		"evals/conv.eval.yaml": `name: conv-cli
tests:
  - id: chat
    mode: conversation
    input: You are helpful.
    turns:
      - input: first apples
        assertions: [{type: contains, value: apples}]
      - input: second pears
        assertions: [{type: contains, value: apples, negate: true}]
  - id: crash
    mode: conversation
    aggregation: max
    input: You are helpful.
    turns:
      - input: please FAIL
        assertions: [{type: contains, value: got}]
      - input: fine
        assertions: [{type: contains, value: got}]
`,
	})
	res := agentv(t, dir, nil, "eval", "evals/conv.eval.yaml", "--workers", "1")
	chat, crash := res.byID()["chat"], res.byID()["crash"]
	if chat == nil || crash == nil {
		t.Fatalf("records %v\nstdout:\n%s\nstderr:\n%s", res.records, res.stdout, res.stderr)
	}
	if chat.Score != 1 || chat.Verdict != "pass" || len(chat.Turns) != 2 || chat.Turns[1].Answer != "got: second pears" {
		t.Errorf("chat: score %v verdict %s turns %+v; want each turn answered from its own input", chat.Score, chat.Verdict, chat.Turns)
	}
	if crash.Verdict != "error" || !strings.Contains(crash.Error, "turn-1: the target gave no answer") || crash.Score != 1 {
		t.Errorf("crash: verdict %s score %v error %q; want an error naming turn 1 (score 1 by max)", crash.Verdict, crash.Score, crash.Error)
	}
	if res.code == 0 {
		t.Errorf("exit 0 with a test in error")
	}
	calls, err := os.ReadFile(filepath.Join(dir, "calls.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := "chat/turn-1: first apples\nchat/turn-2: second pears\ncrash/turn-1: please FAIL\ncrash/turn-2: fine\n"
	if string(calls) != want {
		t.Errorf("the agent was called with\n%s\nwant\n%s", calls, want)
	}
}
