package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// judgeCounter is an OpenAI-compatible chat endpoint whose answer depends on the model name,
// counting the requests for each model (repair requests apart).
type judgeCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (j *judgeCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	repair := false
	for _, m := range req.Messages {
		repair = repair || m.Role == "user" && strings.Contains(m.Content, "Rewrite it to match that structure")
	}
	key := req.Model
	if repair {
		key += ":repair"
	}
	j.mu.Lock()
	j.counts[key]++
	n := j.counts[key]
	j.mu.Unlock()
	verdict := `{"score": 1, "assertions": [{"text": "ok", "passed": true}]}`
	var answer string
	switch req.Model {
	case "down":
		http.Error(w, `{"error": {"message": "boom"}}`, http.StatusInternalServerError)
		return
	case "refuses":
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	case "flaky": // refuses the first call only
		if n == 1 {
			http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
			return
		}
		answer = verdict
	case "prose": // prose, and a verdict when asked to repair it
		answer = "It looks right to me."
		if repair {
			answer = verdict
		}
	case "silent":
		answer = ""
	default:
		answer = verdict
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// TestV4JudgeAttemptsOverHTTP: a 4.x llm-grader's judge calls, counted at a loopback
// OpenAI-compatible server. The counts are AgentV 4.42.4's on the same suite and server
// behaviour (npm agentv@4.42.4, `node dist/cli.js eval eval.yaml`), except for a server that
// keeps failing with 500: the three attempts each go through the target's HTTP retry policy
// (max_retries 3: 4 requests), 12 in all, where 4.42.4's OpenAI client adds its own 2 retries
// inside each of its 4 requests (36).
func TestV4JudgeAttemptsOverHTTP(t *testing.T) {
	t.Parallel()
	srv := &judgeCounter{counts: map[string]int{}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	models := []string{"down", "refuses", "flaky", "prose", "silent", "ok"}
	dir := t.TempDir()
	var targets, tests strings.Builder
	targets.WriteString("targets:\n  - name: default\n    provider: mock\n    response: The answer is 42.\n")
	tests.WriteString("tests:\n")
	for _, m := range models {
		fmt.Fprintf(&targets, "  - name: g-%s\n    provider: openai\n    base_url: %s/v1\n    api_key: ${{ JUDGE_KEY }}\n    model: %s\n    retry_initial_delay_ms: 1\n    retry_max_delay_ms: 2\n", m, ts.URL, m)
		fmt.Fprintf(&tests, "  - id: %s\n    input: q\n    criteria: the answer is 42\n    assertions:\n      - {type: llm-grader, target: g-%s}\n", m, m)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".agentv"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{".agentv/targets.yaml": targets.String(), "eval.yaml": tests.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := agentv(t, dir, []string{"JUDGE_KEY=k"}, "eval", "eval.yaml")
	want := map[string]int{"down": 12, "refuses": 3, "flaky": 2, "prose": 3, "prose:repair": 1, "silent": 3, "ok": 1}
	srv.mu.Lock()
	got := fmt.Sprint(srv.counts)
	srv.mu.Unlock()
	if got != fmt.Sprint(want) {
		t.Errorf("requests per model %s, want %v\n%s%s", got, want, res.stdout, res.stderr)
	}
	recs := res.byID()
	for _, m := range models {
		rec := recs[m]
		if rec == nil {
			t.Errorf("no record for %s\n%s%s", m, res.stdout, res.stderr)
			continue
		}
		passes := m == "flaky" || m == "prose" || m == "ok"
		if passes != (rec.Score == 1 && rec.Error == "") {
			t.Errorf("%s: score %v error %q; want it to pass: %v", m, rec.Score, rec.Error, passes)
		}
	}
	if rec := recs["refuses"]; rec != nil && !strings.Contains(rec.Error, "(the grader asked 3 times)") {
		t.Errorf("refuses: error %q does not say how often it was asked", rec.Error)
	}
}
