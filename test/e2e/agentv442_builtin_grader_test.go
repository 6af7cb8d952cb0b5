package e2e_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// builtinGraderKey is the grader's key; the fake model repeats it, and no output may show it.
const builtinGraderKey = "sk-e2e-BUILTIN-GRADER-5f3a9c1d"

// gradingServer is an OpenAI Chat Completions endpoint that records what each judge call
// sent and answers a passing verdict that quotes the bearer key back.
type gradingServer struct {
	mu   sync.Mutex
	seen []gradingCall
}

type gradingCall struct {
	Auth        string
	Model       string
	Temperature *float64
}

func (g *gradingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model       string   `json:"model"`
		Temperature *float64 `json:"temperature"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error": {"message": "unexpected request"}}`, http.StatusBadRequest)
		return
	}
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	g.mu.Lock()
	g.seen = append(g.seen, gradingCall{Auth: auth, Model: req.Model, Temperature: req.Temperature})
	g.mu.Unlock()
	verdict := fmt.Sprintf(`{"score": 1, "assertions": [{"text": "graded with key %s", "passed": true}]}`, auth)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": verdict}}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

func (g *gradingServer) calls() []gradingCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]gradingCall(nil), g.seen...)
}

// TestAgentV442BuiltinGrader: `--grader-target agentv --model openai:gpt-5-mini` grades with
// that model at temperature 0, with the key from OPENAI_API_KEY, with no grader in the
// targets file (4.42.4's built-in grader); the key is in no output although the model
// repeats it.
func TestAgentV442BuiltinGrader(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	srv := &gradingServer{}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: The answer is 42.\n",
		"s.eval.yaml": "tests:\n  - id: rubric\n    input: What is the answer?\n    criteria: says 42\n" +
			"    assertions:\n      - type: llm-grader\n        prompt: Does the answer say 42?\n" +
			"  - id: default-grader\n    input: What is the answer?\n    criteria: says 42\n",
	})
	env := []string{"OPENAI_API_KEY=" + builtinGraderKey, "OPENAI_BASE_URL=" + ts.URL + "/v1"}
	res := agentv(t, ws, env, "eval", "s.eval.yaml", "--grader-target", "agentv", "--model", "openai:gpt-5-mini")
	if res.code != 0 || len(res.records) != 2 {
		t.Fatalf("exit %d, %d records, want 0 and 2\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	for _, r := range res.records {
		if r.Score != 1 {
			t.Errorf("%s: score %v, want the built-in grader's 1", r.EvalID, r.Score)
		}
	}
	calls := srv.calls()
	if len(calls) != 2 {
		t.Fatalf("%d judge calls, want 2", len(calls))
	}
	for _, c := range calls {
		if c.Auth != builtinGraderKey || c.Model != "gpt-5-mini" || c.Temperature == nil || *c.Temperature != 0 {
			t.Errorf("judge call with key %q, model %q, temperature %v; want OPENAI_API_KEY's, gpt-5-mini, 0", c.Auth, c.Model, c.Temperature)
		}
	}
	if strings.Contains(res.stdout+res.stderr, builtinGraderKey) {
		t.Errorf("the key is in the console output")
	}
	_ = filepath.WalkDir(res.outDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), builtinGraderKey) {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
}

// The built-in grader's flags, wrong: 4.42.4's messages for a missing --model and an unknown
// provider, checked before anything runs (exit 2, this tool's usage error).
func TestAgentV442BuiltinGraderErrors(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: The answer is 42.\n",
		"s.eval.yaml":          "tests:\n  - id: a\n    input: What is the answer?\n    criteria: says 42\n",
	})
	for _, tc := range []struct {
		args []string
		env  []string
		want string
	}{
		{args: []string{"--grader-target", "agentv"}, want: "--grader-target agentv requires --model (e.g., --model openai:gpt-5-mini)"},
		{args: []string{"--grader-target", "agentv", "--model", "foo:bar"},
			want: `Unsupported agentv provider "foo" in "foo:bar". Supported: openai, anthropic, azure, google.`},
		{args: []string{"--grader-target", "agentv", "--model", "gpt-5-mini"}, want: `Invalid agentv model "gpt-5-mini"`},
		{args: []string{"--model", "openai:gpt-5-mini"}, want: "give it with --grader-target agentv"},
		{args: []string{"--grader-target", "agentv", "--model", "openai:gpt-5-mini"}, env: []string{"OPENAI_API_KEY="}, want: "OPENAI_API_KEY is not set"},
	} {
		res := agentv(t, ws, tc.env, append([]string{"eval", "s.eval.yaml"}, tc.args...)...)
		if res.code != 2 || !strings.Contains(res.stdout+res.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 saying %q\n%s%s", tc.args, res.code, tc.want, res.stdout, res.stderr)
		}
	}
}
