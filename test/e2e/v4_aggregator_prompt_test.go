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

// TestV4AggregatorPromptFile: a composite's llm-grader aggregator reads its prompt file, as
// 4.42.4's docs say (graders/composite.mdx, lines 100–103: `prompt:
// ./prompts/conflict-resolution.md`, "Inside the prompt file, use {{EVALUATOR_RESULTS_JSON}}"),
// whether written as that relative path (with a warning: 4.42.4 sends the words) or with
// file:// (4.42.4 sends the path); a prompt naming no file stays text.
func TestV4AggregatorPromptFile(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var prompts []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		for _, m := range req.Messages {
			if m.Role == "user" {
				mu.Lock()
				prompts = append(prompts, m.Content)
				mu.Unlock()
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "created": 1700000000, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant",
				"content": `{"score": 1, "verdict": "pass", "reasoning": "ok"}`}}}})
	}))
	defer ts.Close()
	dir := t.TempDir()
	files := map[string]string{
		".agentv/targets.yaml": fmt.Sprintf("targets:\n  - name: default\n    provider: mock\n    response: The answer is 42.\n    grader_target: judge\n"+
			"  - name: judge\n    provider: openai\n    base_url: %s/v1\n    api_key: ${{ JUDGE_KEY }}\n    model: m\n", ts.URL),
		"prompts/agg.md": "AGGREGATE FROM FILE: {{EVALUATOR_RESULTS_JSON}}\n",
		"eval.yaml": "tests:\n" +
			"  - id: bare\n    input: q\n    assertions:\n      - type: composite\n        assertions:\n          - {name: c, type: contains, value: '42'}\n        aggregator: {type: llm-grader, prompt: ./prompts/agg.md}\n" +
			"  - id: scheme\n    input: q\n    assertions:\n      - type: composite\n        assertions:\n          - {name: c, type: contains, value: '42'}\n        aggregator: {type: llm-grader, prompt: 'file://prompts/agg.md'}\n" +
			"  - id: missing\n    input: q\n    assertions:\n      - type: composite\n        assertions:\n          - {name: c, type: contains, value: '42'}\n        aggregator: {type: llm-grader, prompt: ./prompts/none.md}\n",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := agentv(t, dir, []string{"JUDGE_KEY=k"}, "eval", "eval.yaml", "--workers", "1")
	mu.Lock()
	defer mu.Unlock()
	fromFile, asText := 0, 0
	for _, p := range prompts {
		switch {
		case strings.HasPrefix(p, "AGGREGATE FROM FILE: ") && strings.Contains(p, `"c"`):
			fromFile++
		case strings.TrimSpace(p) == "./prompts/none.md":
			asText++
		}
	}
	if fromFile != 2 || asText != 1 {
		t.Errorf("prompts %q: %d from the file (want 2), %d the missing path as text (want 1)\n%s%s", prompts, fromFile, asText, res.stdout, res.stderr)
	}
	if w := `aggregator prompt "./prompts/agg.md" is read as the file it names`; !strings.Contains(res.stdout+res.stderr, w) {
		t.Errorf("no warning %q\n%s%s", w, res.stdout, res.stderr)
	}
}
