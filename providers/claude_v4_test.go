package providers

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// TestClaudeV4 checks what a claude target does for the cases of 4.x eval files besides the
// prompt and flags (test/e2e TestClaudeTargetAsAgentV442): the stream log's json format, logs
// switched off, where a relative cwd is looked for, and a failure's error naming the log.
func TestClaudeV4(t *testing.T) {
	t.Parallel()
	req := &Request{EvalID: "case/1", Attempt: 0, Question: "What is six times seven?", Agent: agentRulesOf(suite.Dialect4)}

	t.Run("json log, masked", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		raw, err := os.ReadFile(filepath.Join("testdata", "claude", "tool_call.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		// A stream that repeats the key, and a line that is not JSON.
		leaky := "not json " + apiTestKey + "\n" + strings.Replace(string(raw), "What is six times seven?", "What is six times seven? "+apiTestKey, 1)
		stream := filepath.Join(t.TempDir(), "leaky.jsonl")
		if err := os.WriteFile(stream, []byte(leaky), 0o600); err != nil {
			t.Fatal(err)
		}
		logDir := t.TempDir()
		tg := apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script, "log_dir": logDir, "log_format": "json"}, nil)
		p, _, err := New(tg, Options{Env: r.envIn("claude", "ok", stream, "ANTHROPIC_API_KEY="+apiTestKey)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Invoke(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		logs, _ := filepath.Glob(filepath.Join(logDir, "*"))
		if len(logs) != 1 || !regexp.MustCompile(`/\d{4}-\d\d-\d\dT[\d-]+Z_t1_case_1_attempt-1_[0-9a-f]{8}\.log$`).MatchString(logs[0]) {
			t.Fatalf("logs %v, want one named as 4.42.4 names it", logs)
		}
		b, _ := os.ReadFile(logs[0])
		log := string(b)
		lines := strings.Split(strings.TrimSpace(log), "\n")
		if len(lines) < 7 || lines[0] != "# Claude CLI stream log" || lines[1] != "# target: t1" || lines[2] != "# eval: case/1" ||
			lines[3] != "# attempt: 1" || !strings.HasPrefix(lines[4], "# started: ") {
			t.Fatalf("header:\n%s", log)
		}
		if want := `{"time":"00:00","raw":"not json ***"}`; lines[5] != want {
			t.Errorf("line 6 %s, want %s", lines[5], want)
		}
		for _, l := range lines[6:] {
			if !regexp.MustCompile(`^\{"time":"\d\d:\d\d","data":\{".*\}\}$`).MatchString(l) {
				t.Errorf("line %s, want {time, data: event}", l)
			}
		}
		if strings.Contains(log, apiTestKey) || !strings.Contains(log, `What is six times seven? ***`) {
			t.Errorf("the key is not masked in the log:\n%s", log)
		}
	})

	t.Run("a conversation turn's log has no attempt", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		logDir := t.TempDir()
		p, _, err := New(apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script, "log_dir": logDir}, nil),
			Options{Env: r.envIn("claude", "ok", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		treq := *req
		treq.EvalID, treq.Turn = "chat/turn-2", 2
		if _, err := p.Invoke(t.Context(), &treq); err != nil {
			t.Fatal(err)
		}
		logs, _ := filepath.Glob(filepath.Join(logDir, "*"))
		if len(logs) != 1 || !regexp.MustCompile(`Z_t1_chat_turn-2_[0-9a-f]{8}\.log$`).MatchString(logs[0]) {
			t.Fatalf("logs %v, want one named without an attempt, as 4.42.4 names a turn's", logs)
		}
		if b, _ := os.ReadFile(logs[0]); strings.Contains(string(b), "# attempt") || !strings.Contains(string(b), "# eval: chat/turn-2\n# started: ") {
			t.Errorf("header:\n%s", b)
		}
	})

	t.Run("logs off", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		logDir := t.TempDir()
		tg := apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script, "log_dir": logDir}, nil)
		p, _, err := New(tg, Options{Env: r.envIn("claude", "fail", "unauthorized.jsonl", "AGENTV_CLAUDE_STREAM_LOGS=Off")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		var ae *AgentError
		if !errors.As(err, &ae) || len(ae.Logs) != 0 {
			t.Fatalf("error %v, want one without logs", err)
		}
		if logs, _ := filepath.Glob(filepath.Join(logDir, "*")); len(logs) != 0 {
			t.Errorf("logs %v written with AGENTV_CLAUDE_STREAM_LOGS=off", logs)
		}
		if _, err := os.Stat(strings.TrimSpace(r.read(t, "cwd"))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the temporary workspace of a failed run is kept: %v", err)
		}
	})

	t.Run("a failure names its log", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		logDir := t.TempDir()
		tg := apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script, "log_dir": logDir}, nil)
		p, _, err := New(tg, Options{Env: r.envIn("claude", "fail", "unauthorized.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		var ae *AgentError
		if !errors.As(err, &ae) || len(ae.Logs) != 1 || filepath.Dir(ae.Logs[0]) != logDir || !strings.Contains(err.Error(), "logs: "+ae.Logs[0]) {
			t.Fatalf("error %v, want one naming the stream log in log_dir", err)
		}
		b, _ := os.ReadFile(ae.Logs[0])
		if !strings.Contains(string(b), "] [result] ") {
			t.Errorf("log of the failed run:\n%s", b)
		}
	})

	// A relative cwd: 4.42.4 takes it from the working directory (here the package's, which
	// holds testdata/claude); 2.5 files from the eval file's folder.
	for kind, name := range map[string]string{targets.KindClaude: "claude", targets.KindCodex: "codex"} {
		t.Run(name+" relative cwd", func(t *testing.T) {
			t.Parallel()
			r := newCodexFakeRun(t)
			evalDir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(evalDir, "testdata", name), 0o755); err != nil {
				t.Fatal(err)
			}
			tg := apiTestTarget(kind, map[string]any{"executable": r.script, "cwd": "testdata/" + name, "log_dir": t.TempDir()}, nil)
			p, _, err := New(tg, Options{Env: r.envIn(name, "ok", "answer.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			wd, _ := os.Getwd()
			for _, tc := range []struct{ dialect, want string }{
				{suite.Dialect4, filepath.Join(wd, "testdata", name)},
				{suite.Dialect25, filepath.Join(evalDir, "testdata", name)},
				{"", filepath.Join(evalDir, "testdata", name)},
			} {
				dreq := *req
				dreq.Agent, dreq.Dir = agentRulesOf(tc.dialect), evalDir
				if err := p.(HealthChecker).HealthCheck(WithAgentRules(WithEvalDir(t.Context(), evalDir), agentRulesOf(tc.dialect))); err != nil {
					t.Errorf("%q: healthcheck: %v", tc.dialect, err)
				}
				if _, err := p.Invoke(t.Context(), &dreq); err != nil {
					t.Fatalf("%q: %v", tc.dialect, err)
				}
				if got := strings.TrimSpace(r.read(t, "cwd")); got != tc.want {
					t.Errorf("dialect %q: cwd %s, want %s", tc.dialect, got, tc.want)
				}
			}
			// A folder that is only below the eval file's folder is not found for a 4.x file.
			if err := os.MkdirAll(filepath.Join(evalDir, "only-here"), 0o755); err != nil {
				t.Fatal(err)
			}
			tg2 := apiTestTarget(kind, map[string]any{"executable": r.script, "cwd": "only-here", "log_dir": t.TempDir()}, nil)
			p2, _, err := New(tg2, Options{Env: r.envIn(name, "ok", "answer.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			hc := p2.(HealthChecker).HealthCheck(WithAgentRules(WithEvalDir(t.Context(), evalDir), agentRulesOf(suite.Dialect4)))
			dreq := *req
			dreq.Dir = evalDir
			_, ierr := p2.Invoke(t.Context(), &dreq)
			for _, e := range []error{hc, ierr} {
				if e == nil || !strings.Contains(e.Error(), `only-here" does not exist (in a 4.x eval file a relative cwd is taken from the working directory`) {
					t.Errorf("error %v, want one saying where the cwd was looked for", e)
				}
			}
		})
	}
}

func TestClaudeV4LogName(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 6, 2, 8, 72_000_000, time.UTC)
	tests := []struct {
		target string
		req    Request
		want   string // before the random suffix
	}{
		{"default", Request{EvalID: "one"}, "2026-11-27T06-02-08-072Z_default_one_attempt-1_"},
		{"my target", Request{EvalID: "a/b c", Attempt: 2}, "2026-11-27T06-02-08-072Z_my_target_a_b_c_attempt-3_"},
		{"t", Request{EvalID: "chat/turn-2", Turn: 2}, "2026-11-27T06-02-08-072Z_t_chat_turn-2_"},
		{"t", Request{}, "2026-11-27T06-02-08-072Z_t_claude-cli_attempt-1_"},
	}
	for _, tt := range tests {
		got := claudeV4LogName(at, tt.target, &tt.req)
		if !strings.HasPrefix(got, tt.want) || !regexp.MustCompile(`_[0-9a-f]{8}\.log$`).MatchString(got) {
			t.Errorf("claudeV4LogName(%q, %q) = %q, want %s<8 hex>.log", tt.target, tt.req.EvalID, got, tt.want)
		}
	}
}

// agentRulesOf is what the suite loader sets in Suite.Agent for a file of the dialect.
func agentRulesOf(dialect string) suite.AgentRules {
	if dialect == suite.Dialect4 {
		return suite.AgentRules{CwdFromWorkDir: true, AbsoluteFileRefs: true, PromptAs442: true}
	}
	return suite.AgentRules{}
}
