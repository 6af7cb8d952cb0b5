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

	"github.com/agentv/action/action/actiontest"
)

// fakeLLM is a loopback OpenAI-compatible server that counts the chat requests it answers, by
// model, and keeps their bodies: the agent model echoes the question, the judge model gives a
// verdict whose score depends on the answer it grades.
type fakeLLM struct {
	srv    *httptest.Server
	mu     sync.Mutex
	calls  map[string]int
	bodies []string
	// answer, when set (before the first request), replaces the answer to a request: it gets
	// the model, the request body and its last message, and returns "" to keep the default.
	// It runs with mu held.
	answer func(model string, body []byte, last string) string
}

func newFakeLLM(t *testing.T) *fakeLLM {
	t.Helper()
	f := &fakeLLM{calls: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		last := ""
		if n := len(req.Messages); n > 0 {
			last = req.Messages[n-1].Content
		}
		f.mu.Lock()
		f.calls[req.Model]++
		f.bodies = append(f.bodies, string(body))
		custom := ""
		if f.answer != nil {
			custom = f.answer(req.Model, body, last)
		}
		f.mu.Unlock()
		answer := "echo: " + last
		if req.Model == "judge-model" {
			score := float64(len(last)%5) / 4
			v, _ := json.Marshal(map[string]any{"score": score, "hits": []string{"read it"}, "misses": []string{}, "reasoning": "looked"})
			answer = string(v)
		}
		if custom != "" {
			answer = custom
		}
		resp, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(resp)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// take returns the calls by model since the last take, and their bodies.
func (f *fakeLLM) take() (map[string]int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	calls, bodies := f.calls, f.bodies
	f.calls, f.bodies = map[string]int{}, nil
	return calls, bodies
}

func cacheSuite(n int, changed int) string {
	var b strings.Builder
	b.WriteString("evalcases:\n")
	for i := range n {
		q := fmt.Sprintf("question %03d", i)
		if i == changed {
			q += " (reworded)"
		}
		fmt.Fprintf(&b, "  - id: case-%03d\n    input: %q\n    expected_outcome: a short answer\n", i, q)
	}
	return b.String()
}

// TestCacheRunTwice: a 200-case suite run twice with --cache makes no provider request the
// second time and scores the same; after one case's input changes, exactly that case's target
// and judge are called again, and --verbose names the misses.
func TestCacheRunTwice(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	llm := newFakeLLM(t)
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	writeFiles(t, dir, map[string]string{
		"targets.yaml": fmt.Sprintf(`targets:
  - name: default
    provider: openai
    base_url: %[1]s/v1
    api_key: sk-test
    model: agent-model
    judge_target: judge
    workers: 8
  - name: judge
    provider: openai
    base_url: %[1]s/v1
    api_key: sk-test
    model: judge-model
`, llm.srv.URL),
		"s.yaml": cacheSuite(200, -1),
	})
	run := func(extra ...string) runResult {
		t.Helper()
		args := append([]string{"eval", "s.yaml", "--cache", "--cache-dir", cacheDir, "--case-threshold", "0"}, extra...)
		res := agentv(t, dir, nil, args...)
		if res.code != 0 || len(res.records) != 200 {
			t.Fatalf("exit %d, %d records\nstdout:\n%s\nstderr:\n%s", res.code, len(res.records), res.stdout, res.stderr)
		}
		return res
	}

	first := run()
	if calls, _ := llm.take(); calls["agent-model"] != 200 || calls["judge-model"] != 200 {
		t.Fatalf("first run calls = %v, want 200 each", calls)
	}
	if c := first.records[0].Cache; c == nil || c.Hits != 0 || c.Misses != 2 {
		t.Errorf("first run record cache = %+v, want 2 misses", c)
	}

	second := run()
	if calls, _ := llm.take(); len(calls) != 0 {
		t.Fatalf("second run made provider requests: %v", calls)
	}
	if !strings.Contains(second.stdout, "400 of 400 calls from cache; 48.0k tokens not spent") {
		t.Errorf("console does not say what the cache did:\n%s", second.stdout)
	}
	summary, _ := os.ReadFile(filepath.Join(second.outDir, "summary.md"))
	if !strings.Contains(string(summary), "400 of 400 calls from cache") {
		t.Errorf("summary does not say what the cache did:\n%s", summary)
	}
	a, b := first.byID(), second.byID()
	for id, r := range a {
		s := b[id]
		if s.Score != r.Score || s.CandidateAnswer != r.CandidateAnswer || s.Verdict != r.Verdict || s.Reasoning != r.Reasoning {
			t.Fatalf("%s: second run %v %q %s, first %v %q %s", id, s.Score, s.CandidateAnswer, s.Verdict, r.Score, r.CandidateAnswer, r.Verdict)
		}
		if s.Cache == nil || s.Cache.Hits != 2 || s.Cache.Misses != 0 {
			t.Fatalf("%s: record cache = %+v, want 2 hits", id, s.Cache)
		}
	}

	writeFiles(t, dir, map[string]string{"s.yaml": cacheSuite(200, 7)})
	third := run("--verbose")
	calls, bodies := llm.take()
	if calls["agent-model"] != 1 || calls["judge-model"] != 1 {
		t.Fatalf("after changing one case, calls = %v, want 1 target and 1 judge", calls)
	}
	for _, body := range bodies {
		if !strings.Contains(body, "question 007 (reworded)") {
			t.Errorf("a call that is not for the changed case: %s", body)
		}
	}
	log := third.stdout + third.stderr
	if strings.Count(log, "cache miss") != 2 || !strings.Contains(log, "cache miss: case-007: target \"default\"") ||
		!strings.Contains(log, "cache miss: case-007: judge \"judge\"") {
		t.Errorf("--verbose does not name exactly the two misses:\n%s", log)
	}
}

// TestCacheSharedByConcurrentRuns: two runs sharing one cache folder at once both finish with
// every case answered, and a third run finds everything they stored.
func TestCacheSharedByConcurrentRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	llm := newFakeLLM(t)
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	writeFiles(t, dir, map[string]string{
		"targets.yaml": fmt.Sprintf("targets:\n  - name: default\n    provider: openai\n    base_url: %[1]s/v1\n    api_key: k\n    model: agent-model\n    judge_target: judge\n    workers: 4\n  - name: judge\n    provider: openai\n    base_url: %[1]s/v1\n    api_key: k\n    model: judge-model\n", llm.srv.URL),
		"s.yaml":       cacheSuite(60, -1),
	})
	args := []string{"eval", "s.yaml", "--cache", "--cache-dir", cacheDir, "--case-threshold", "0"}
	var wg sync.WaitGroup
	res := make([]runResult, 2)
	for i := range res {
		wg.Go(func() { res[i] = agentv(t, dir, nil, args...) })
	}
	wg.Wait()
	for i, r := range res {
		if r.code != 0 || len(r.records) != 60 {
			t.Fatalf("run %d: exit %d, %d records\n%s%s", i, r.code, len(r.records), r.stdout, r.stderr)
		}
	}
	llm.take()
	last := agentv(t, dir, nil, args...)
	if calls, _ := llm.take(); last.code != 0 || len(calls) != 0 {
		t.Errorf("the run after two shared runs: exit %d, calls %v, want none", last.code, calls)
	}
}

// TestCacheUnwritable: a cache folder that cannot be written warns once and the run goes on.
func TestCacheUnwritable(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	llm := newFakeLLM(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"targets.yaml": fmt.Sprintf("targets:\n  - name: default\n    provider: openai\n    base_url: %s/v1\n    api_key: k\n    model: agent-model\n    judge_target: default\n", llm.srv.URL),
		"s.yaml":       cacheSuite(5, -1),
		"blocker":      "a file where the cache folder would go",
	})
	res := agentv(t, dir, nil, "eval", "s.yaml", "--cache", "--cache-dir", "blocker/cache", "--case-threshold", "0")
	if res.code != 0 || len(res.records) != 5 {
		t.Fatalf("exit %d, %d records\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	if n := strings.Count(res.stdout+res.stderr, "cannot be written"); n != 1 {
		t.Errorf("warnings = %d, want 1:\n%s%s", n, res.stdout, res.stderr)
	}
}

// TestActionCache: the Action's cache input stores answers in cache-dir under the workspace,
// and the next run's summary says they came from there.
func TestActionCache(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	gh := actiontest.StartGitHub(t)
	ws := actionWorkspace(t)
	in := map[string]string{"evals": "evals/*.yaml", "max-failures": "1", "comment": "off", "cache": "read-write"}
	first := runAction(t, ws, "event-pull_request.json", gh, in)
	entries, _ := filepath.Glob(filepath.Join(ws, ".agentv-cache", "v*", "*", "*.json"))
	if first.code != 0 || len(entries) == 0 {
		t.Fatalf("first run: exit %d, %d cache entries\n%s", first.code, len(entries), first.stdout)
	}
	second := runAction(t, ws, "event-pull_request.json", gh, in)
	if second.code != 0 || !strings.Contains(second.summary, "5 of 5 calls from cache") {
		t.Errorf("second run: exit %d; summary does not say the calls came from the cache:\n%s", second.code, second.summary)
	}
	in["cache"] = "off"
	third := runAction(t, ws, "event-pull_request.json", gh, in)
	if strings.Contains(third.summary, "from cache") {
		t.Errorf("cache off still reads the cache:\n%s", third.summary)
	}
}

// cacheTargets is an agent and a judge on the fake, the judge the agent's judge_target.
func cacheTargets(url string) string {
	return fmt.Sprintf("targets:\n  - name: default\n    provider: openai\n    base_url: %[1]s/v1\n    api_key: k\n    model: agent-model\n    judge_target: judge\n  - name: judge\n    provider: openai\n    base_url: %[1]s/v1\n    api_key: k\n    model: judge-model\n", url)
}

// verdict is a judge reply with score s.
func verdict(s float64) string {
	v, _ := json.Marshal(map[string]any{"score": s, "hits": []string{}, "misses": []string{}, "reasoning": "graded"})
	return string(v)
}

// TestCacheKeepsGraderTemperature: an llm-grader's own temperature reaches its judge (AgentV
// 4.42.4 sends it when the grader names its target), so a verdict given at 0 must not answer
// the same grader at 1.5. The fake judge passes answers only at 1.5.
func TestCacheKeepsGraderTemperature(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	llm := newFakeLLM(t)
	llm.answer = func(model string, body []byte, _ string) string {
		var req struct {
			Temperature *float64 `json:"temperature"`
		}
		_ = json.Unmarshal(body, &req)
		if model != "judge-model" {
			return ""
		}
		if req.Temperature != nil && *req.Temperature == 1.5 {
			return verdict(1)
		}
		return verdict(0)
	}
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	suite := func(temp string) string {
		return "name: temps\ntests:\n  - id: t\n    input: What is six times seven?\n    criteria: Answers 42\n" +
			"    assertions:\n      - type: llm-grader\n        target: judge\n        temperature: " + temp + "\n"
	}
	writeFiles(t, dir, map[string]string{"targets.yaml": cacheTargets(llm.srv.URL), "t.eval.yaml": suite("0")})
	args := []string{"eval", "t.eval.yaml", "--cache", "--cache-dir", cacheDir}
	cold := agentv(t, dir, nil, args...)
	if len(cold.records) != 1 || cold.records[0].Verdict != "fail" {
		t.Fatalf("at 0: exit %d, %d records, not one that fails\n%s%s", cold.code, len(cold.records), cold.stdout, cold.stderr)
	}
	llm.take()
	writeFiles(t, dir, map[string]string{"t.eval.yaml": suite("1.5")})
	hot := agentv(t, dir, nil, args...)
	calls, _ := llm.take()
	if len(hot.records) != 1 || hot.records[0].Verdict != "pass" || hot.code != 0 {
		t.Errorf("at 1.5: exit %d, %d records, not one that passes: the verdict given at 0 was replayed\n%s%s", hot.code, len(hot.records), hot.stdout, hot.stderr)
	}
	if calls["judge-model"] != 1 || calls["agent-model"] != 0 {
		t.Errorf("at 1.5: calls %v, want the judge asked again and the agent's answer from the cache", calls)
	}
}

// TestCacheStoresOnlyAcceptedReplies: a judge reply that is no verdict ({"note": …}) is not
// stored. The fake judge replies so to the first ask of each prompt and with a verdict after.
// A 4.x grader asks again and gets the verdict (stored: the next run makes no call); a 2.5
// llm_judge scores the note 0, and the next run asks again instead of failing for ever.
func TestCacheStoresOnlyAcceptedReplies(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	llm := newFakeLLM(t)
	seen := map[string]bool{}
	llm.answer = func(model string, _ []byte, last string) string {
		if model != "judge-model" {
			return ""
		}
		if !seen[last] {
			seen[last] = true
			return `{"note": "let me look at this first"}`
		}
		return verdict(1)
	}
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	writeFiles(t, dir, map[string]string{
		"targets.yaml": cacheTargets(llm.srv.URL),
		"v4.eval.yaml": "name: v4\ntests:\n  - id: reasked\n    input: What is six times seven?\n    criteria: Answers 42\n" +
			"    assertions:\n      - type: llm-grader\n",
		"old.yaml": "evalcases:\n  - id: legacy\n    input: What is seven times six?\n    expected_outcome: Answers 42\n",
	})
	args := []string{"eval", "v4.eval.yaml", "old.yaml", "--cache", "--cache-dir", cacheDir}
	want := func(res runResult, run string, verdicts map[string]string, judgeCalls int) {
		t.Helper()
		calls, _ := llm.take()
		got := res.byID()
		for id, v := range verdicts {
			if r := got[id]; r == nil {
				t.Errorf("%s run, %s: no record\n%s%s", run, id, res.stdout, res.stderr)
			} else if string(r.Verdict) != v {
				t.Errorf("%s run, %s: %s (%q), want %s", run, id, r.Verdict, r.Reasoning, v)
			}
		}
		if calls["judge-model"] != judgeCalls {
			t.Errorf("%s run: judge calls %d, want %d", run, calls["judge-model"], judgeCalls)
		}
	}
	want(agentv(t, dir, nil, args...), "first", map[string]string{"reasked": "pass", "legacy": "fail"}, 3)
	want(agentv(t, dir, nil, args...), "second", map[string]string{"reasked": "pass", "legacy": "pass"}, 1)
	want(agentv(t, dir, nil, args...), "third", map[string]string{"reasked": "pass", "legacy": "pass"}, 0)
}

// TestCacheBypassedByCodeJudgeProxy: a code judge's calls through its target proxy never use
// the response cache: three asks of the same question get three answers, in every run.
func TestCacheBypassedByCodeJudgeProxy(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	llm := newFakeLLM(t)
	n := 0
	llm.answer = func(model string, _ []byte, last string) string {
		if model != "agent-model" || last != "pick a number" {
			return ""
		}
		n++
		return fmt.Sprintf("number %d", n)
	}
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	writeFiles(t, dir, map[string]string{
		"targets.yaml": cacheTargets(llm.srv.URL),
		"s.yaml": `evalcases:
  - id: sampled
    input: hi
    evaluators:
      - name: samples
        type: code_judge
        script: [python3, judge.py]
        target: {max_calls: 3}
`,
		"judge.py": `import json, os, sys, urllib.request
json.load(sys.stdin)
def invoke(q):
    req = urllib.request.Request(os.environ["AGENTV_TARGET_PROXY_URL"] + "/invoke", method="POST",
        data=json.dumps({"question": q, "target": "default"}).encode(),
        headers={"Authorization": "Bearer " + os.environ["AGENTV_TARGET_PROXY_TOKEN"]})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)["rawText"]
answers = [invoke("pick a number") for _ in range(3)]
print(json.dumps({"score": 1 if len(set(answers)) == 3 else 0, "details": {"answers": answers}}))
`,
	})
	for _, run := range []string{"first", "second"} {
		res := agentv(t, dir, nil, "eval", "s.yaml", "--cache", "--cache-dir", cacheDir)
		if len(res.records) != 1 || res.records[0].Score != 1 {
			var details string
			if len(res.records) == 1 && len(res.records[0].EvaluatorResults) == 1 {
				details = string(res.records[0].EvaluatorResults[0].Details)
			}
			t.Errorf("%s run: exit %d, %d records, details %s: the proxy's asks were answered from the cache\n%s%s",
				run, res.code, len(res.records), details, res.stdout, res.stderr)
		}
		if calls, _ := llm.take(); calls["agent-model"] < 3 {
			t.Errorf("%s run: agent calls %v, want at least the proxy's 3", run, calls)
		}
	}
}

// TestCacheLinkOnTheWay: locally too, a symbolic link between the working directory and the
// cache folder (--cache-dir build/cache, build a link elsewhere) is not followed: the run
// goes on without the cache, says why, and writes nothing where the link leads.
func TestCacheLinkOnTheWay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	llm := newFakeLLM(t)
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{"targets.yaml": cacheTargets(llm.srv.URL), "s.yaml": cacheSuite(3, -1)})
	if err := os.Symlink(outside, filepath.Join(dir, "build")); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"first", "second"} {
		res := agentv(t, dir, nil, "eval", "s.yaml", "--cache", "--cache-dir", "build/cache", "--case-threshold", "0")
		if res.code != 0 || len(res.records) != 3 || !strings.Contains(res.stdout+res.stderr, "symbolic link") {
			t.Errorf("%s run: exit %d, %d records; want 3 and a warning naming the link\n%s%s", run, res.code, len(res.records), res.stdout, res.stderr)
		}
		if calls, _ := llm.take(); calls["agent-model"] != 3 {
			t.Errorf("%s run: calls %v, want every case asked", run, calls)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the cache wrote where the link leads: %v", entries)
	}
}
