package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

func TestClaudeKinds(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"claude-code", "Claude-Code", "claude", "claude-cli"} {
		if got := targets.CanonicalKind(name); got != targets.KindClaude {
			t.Errorf("targets.CanonicalKind(%q) = %q, want %q", name, got, targets.KindClaude)
		}
	}
	if ModeOf(targets.KindClaude) != ModeAgent {
		t.Errorf("claude-code must get agent-mode prompts (files by path)")
	}
}

func TestClaudeParseFixtures(t *testing.T) {
	t.Parallel()
	c := func(n int64) *int64 { return &n }
	tests := []struct {
		file    string
		final   string
		usage   *Usage
		calls   []string // tool: input
		msgs    int
		isError bool
		failure string
	}{
		{file: "answer.jsonl", final: "The answer is 42.", usage: &Usage{Input: 1400, Output: 7, Cached: c(200)}, msgs: 1},
		// The text and the tool_use of one message come as two events with the same id: one turn.
		{file: "tool_call.jsonl", final: "I read prompt.md. Done.", usage: &Usage{Input: 3500, Output: 29, Cached: c(1000)}, msgs: 2,
			calls: []string{`Bash: {"command":"cat prompt.md","description":"Show the prompt"}`}},
		{file: "max_turns.jsonl", usage: &Usage{Input: 1000, Output: 20}, msgs: 1, isError: true,
			calls:   []string{`Bash: {"command":"cat prompt.md","description":"Show the prompt"}`},
			failure: "Reached maximum number of turns (1)"},
		{file: "unauthorized.jsonl", usage: &Usage{}, isError: true, failure: "Invalid API key · Fix external API key (API status 401)"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join("testdata", "claude", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			s := claudeParseStream(raw)
			if s.Final != tc.final || s.IsError != tc.isError || s.Failure != tc.failure {
				t.Errorf("Final, IsError, Failure = %q, %v, %q; want %q, %v, %q", s.Final, s.IsError, s.Failure, tc.final, tc.isError, tc.failure)
			}
			if diff := cmp.Diff(tc.usage, s.Usage); diff != "" {
				t.Errorf("Usage (-want +got):\n%s", diff)
			}
			var calls []string
			for _, m := range s.Messages {
				for _, c := range m.Calls {
					calls = append(calls, c.Tool+": "+string(c.Input))
					if c.Output == nil && tc.file == "tool_call.jsonl" {
						t.Errorf("call %s has no output: the tool_result was not matched", c.ID)
					}
				}
			}
			if diff := cmp.Diff(tc.calls, calls); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if len(s.Messages) != tc.msgs {
				t.Errorf("%d assistant turns, want %d", len(s.Messages), tc.msgs)
			}
			if !s.Result || s.CostUSD == nil || s.DurationMS == nil || s.Model == "" {
				t.Errorf("result %v, cost %v, duration %v, model %q: want all from a real stream", s.Result, s.CostUSD, s.DurationMS, s.Model)
			}
			if s.Skipped != 0 {
				t.Errorf("skipped %d lines of a real stream", s.Skipped)
			}
		})
	}
}

func TestClaudeParseShapes(t *testing.T) {
	t.Parallel()
	const (
		text   = `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hello"}]}}`
		use    = `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"tu1","name":"Read","input":{"file_path":"a.go"}}]}}`
		result = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"line 1"},{"type":"text","text":"line 2"}],"is_error":true}]}}`
	)
	tests := []struct {
		name, in       string
		final, failure string
		isError        bool
		check          func(t *testing.T, s *claudeStream)
	}{
		{name: "result text is the answer", in: text + "\n" + `{"type":"result","subtype":"success","is_error":false,"result":"final"}`, final: "final"},
		{name: "without a result, the last assistant text", in: text + "\n" + `{"type":"assistant","message":{"id":"m2","content":"plain string content"}}`,
			final: "plain string content"},
		{name: "blocks of one message merge, tool results attach", in: text + "\n" + use + "\n" + result + "\n" +
			`{"type":"result","subtype":"success","result":"done"}`, final: "done",
			check: func(t *testing.T, s *claudeStream) {
				if len(s.Messages) != 1 || len(s.Messages[0].Calls) != 1 {
					t.Fatalf("messages = %+v, want one turn with one call", s.Messages)
				}
				c := s.Messages[0].Calls[0]
				if c.Output == nil || *c.Output != "line 1\nline 2" || !c.IsError || string(c.Input) != `{"file_path":"a.go"}` {
					t.Errorf("call = %+v", c)
				}
			}},
		{name: "older versions: cost_usd and tokens on the result", in: `{"type":"result","subtype":"success","result":"r","cost_usd":0.5,"duration_ms":12,"input_tokens":3,"output_tokens":4}`,
			final: "r", check: func(t *testing.T, s *claudeStream) {
				if s.CostUSD == nil || *s.CostUSD != 0.5 || s.Usage == nil || s.Usage.Input != 3 || s.Usage.Output != 4 || *s.DurationMS != 12 {
					t.Errorf("cost %v usage %+v", s.CostUSD, s.Usage)
				}
			}},
		{name: "error subtype without text", in: `{"type":"result","subtype":"error_during_execution","is_error":true}`,
			failure: "the run ended with error_during_execution", isError: true},
		{name: "error list", in: `{"type":"result","subtype":"error_max_budget_usd","is_error":true,"errors":["budget spent","stopped"]}`,
			failure: "budget spent; stopped", isError: true},
		{name: "an error result is not an answer", in: text + "\n" + `{"type":"result","subtype":"success","is_error":true,"result":"Credit balance too low"}`,
			failure: "Credit balance too low", isError: true},
		{name: "retries without a result", in: `{"type":"system","subtype":"api_retry","error_status":529,"error":"overloaded"}`,
			failure: "API error 529 overloaded"},
		{name: "an API error printed as the assistant's text", in: `{"type":"assistant","message":{"id":"x","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}]},"error":"unknown","is_api_error_message":true}`,
			failure: "API Error: 500"},
		{name: "warnings and partial events are skipped", in: "Warning: something\n" + `{"type":"stream_event","event":{"type":"content_block_delta"}}` + "\n" + text,
			final: "hello", check: func(t *testing.T, s *claudeStream) {
				if s.Skipped != 1 || s.Events != 2 {
					t.Errorf("skipped %d, events %d; want 1 and 2", s.Skipped, s.Events)
				}
			}},
		{name: "thinking is not the answer", in: `{"type":"assistant","message":{"id":"m","content":[{"type":"thinking","thinking":"hmm"}]}}`},
		{name: "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := claudeParseStream([]byte(tc.in))
			if s.Final != tc.final || s.Failure != tc.failure || s.IsError != tc.isError {
				t.Errorf("Final, Failure, IsError = %q, %q, %v; want %q, %q, %v", s.Final, s.Failure, s.IsError, tc.final, tc.failure, tc.isError)
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

func TestClaudeOutputMessages(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "claude", "tool_call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := claudeOutputMessages(claudeParseStream(raw))
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want the tool turn and the answer", len(msgs))
	}
	var calls []map[string]any
	if err := json.Unmarshal(msgs[0].ToolCalls, &calls); err != nil || len(calls) != 1 {
		t.Fatalf("tool_calls = %s (%v)", msgs[0].ToolCalls, err)
	}
	if calls[0]["tool"] != "Bash" || calls[0]["id"] != "toolu_fake_1" || !strings.Contains(calls[0]["output"].(string), "[[ ## user_query ## ]]") {
		t.Errorf("tool call = %v", calls[0])
	}
	if msgs[0].Content.Text != "Let me read the prompt." || msgs[1].Content.Text != "I read prompt.md. Done." {
		t.Errorf("texts = %q, %q", msgs[0].Content.Text, msgs[1].Content.Text)
	}
	// A result that differs from the last turn's text is the answer, as a message of its own.
	s := claudeParseStream([]byte(`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"draft"}]}}` + "\n" +
		`{"type":"result","subtype":"success","result":"final"}`))
	got := claudeOutputMessages(s)
	want := []suite.Message{{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: "draft"}}}
	want = append(want, textAnswer("final")...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func FuzzClaudeParseStream(f *testing.F) {
	for _, name := range []string{"answer.jsonl", "tool_call.jsonl", "max_turns.jsonl", "unauthorized.jsonl"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "claude", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"nope","content":7}]}}`))
	f.Add([]byte("{\"type\":\"result\",\"usage\":{\"input_tokens\":-1}}\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := claudeParseStream(data)
		if s.Final != "" && s.Events == 0 {
			t.Errorf("an answer without any event: %+v", s)
		}
		if s.Final != "" {
			msgs := claudeOutputMessages(s)
			if last := msgs[len(msgs)-1]; last.Content.Text == "" {
				t.Errorf("the answer %q is not in the output messages", s.Final)
			}
		}
	})
}

func TestClaudeProvider(t *testing.T) {
	t.Parallel()
	req := &Request{EvalID: "case/1", Attempt: 1, Question: "Fix the bug in <file: path=\"src/app.go\">.",
		GuidelinePaths: []string{"/repo/.github/style.instructions.md"}, InputFiles: []string{"/repo/src/app.go"}}

	t.Run("invocation, workspace, prompt and answer", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		tg := apiTestTarget(targets.KindClaude, map[string]any{"command": r.script, "model": "${{ CLAUDE_MODEL }}", "max_turns": 5,
			"maxBudgetUsd": 0.25, "arguments": []any{"--allowedTools", "Bash"}}, map[string]string{"CLAUDE_MODEL": "claude-sonnet-4-5"})
		p, warns, err := New(tg, Options{Env: r.envIn("claude", "ok", "tool_call.jsonl", "GITHUB_TOKEN=ghs_secret", "KEEP_ME=1",
			"CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=cli", "ANTHROPIC_API_KEY="+apiTestKey)})
		if err != nil || len(warns) > 0 {
			t.Fatalf("New: %v %v", err, warns)
		}
		resp, err := p.Invoke(t.Context(), req)
		if err != nil {
			t.Fatalf("Invoke: %v", err)
		}
		wantArgv := "-p\n--output-format\nstream-json\n--verbose\n--dangerously-skip-permissions\n--model\nclaude-sonnet-4-5\n" +
			"--max-turns\n5\n--max-budget-usd\n0.25\n--allowedTools\nBash\n"
		if diff := cmp.Diff(wantArgv, r.read(t, "argv")); diff != "" {
			t.Errorf("argv (-want +got):\n%s", diff)
		}
		doc := codexPromptDocument(claudeDefaultSystem, req)
		if r.read(t, "stdin") != doc || r.read(t, "prompt.md") != doc {
			t.Errorf("stdin and prompt.md must both be the prompt document:\n%s", r.read(t, "stdin"))
		}
		ws := strings.TrimSpace(r.read(t, "cwd"))
		if !strings.Contains(filepath.Base(ws), "agentv-claude-") {
			t.Errorf("cwd = %q, want the temporary workspace", ws)
		}
		if _, err := os.Stat(ws); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("workspace %s left behind after a success", ws)
		}
		env := r.read(t, "env")
		for _, gone := range []string{"GITHUB_TOKEN", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"} {
			if strings.Contains(env, gone+"=") {
				t.Errorf("child env keeps %s:\n%s", gone, env)
			}
		}
		if !strings.Contains(env, "KEEP_ME=1") || !strings.Contains(env, "ANTHROPIC_API_KEY="+apiTestKey) {
			t.Errorf("child env must keep other variables and the CLI's credentials:\n%s", env)
		}
		if resp.Text != "I read prompt.md. Done." || len(resp.OutputMessages) != 2 {
			t.Errorf("resp = %q, %d messages", resp.Text, len(resp.OutputMessages))
		}
		if resp.Usage == nil || resp.Usage.Input != 3500 || resp.Usage.Output != 29 || resp.CostUSD == nil || *resp.CostUSD != 0.01078 {
			t.Errorf("usage %+v, cost %v: want the result event's", resp.Usage, resp.CostUSD)
		}
		if resp.DurationMS == nil || *resp.DurationMS <= 0 {
			t.Errorf("DurationMS = %v", resp.DurationMS)
		}
		if !strings.Contains(string(resp.OutputMessages[0].ToolCalls), `"tool":"Bash"`) {
			t.Errorf("tool calls = %s", resp.OutputMessages[0].ToolCalls)
		}
	})

	t.Run("price wins over the CLI's cost; bypass off; secrets from the environment masked", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		// A stream whose tool output printed the key the CLI was given.
		raw, err := os.ReadFile(filepath.Join("testdata", "claude", "tool_call.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		leaky := strings.Replace(string(raw), "What is six times seven?", "What is six times seven? "+apiTestKey, 1)
		stream := filepath.Join(t.TempDir(), "leaky.jsonl")
		if err := os.WriteFile(stream, []byte(leaky), 0o600); err != nil {
			t.Fatal(err)
		}
		tg := apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script, "bypass_permissions": false}, nil)
		tg.Price = &targets.Price{InputPerMTok: 1, OutputPerMTok: 4}
		p, _, err := New(tg, Options{Env: r.envIn("claude", "ok", stream, "ANTHROPIC_API_KEY="+apiTestKey)})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Invoke(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.read(t, "argv"), "--dangerously-skip-permissions") {
			t.Errorf("bypass_permissions: false still passes --dangerously-skip-permissions")
		}
		if resp.CostUSD == nil || *resp.CostUSD != (3500*1.0+29*4.0)/1e6 {
			t.Errorf("CostUSD = %v, want the target's price applied", resp.CostUSD)
		}
		all, _ := json.Marshal(resp.OutputMessages)
		if strings.Contains(string(all), apiTestKey) || !strings.Contains(string(all), "***") {
			t.Errorf("the key from ANTHROPIC_API_KEY is not masked in the answer: %s", all)
		}
	})

	t.Run("failure carries exit code, stderr, stdout tail and kept logs, redacted", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		tg := apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script}, nil)
		// The key is known only as the CLI's credential in the environment.
		p, _, err := New(tg, Options{Env: r.envIn("claude", "fail", "unauthorized.jsonl", "AGENTV_CLAUDE_CODE_LOG_FORMAT=summary",
			"ANTHROPIC_API_KEY="+apiTestKey)})
		if err != nil {
			t.Fatal(err)
		}
		// The environment of the targets file, not the child's, selects the log format.
		tg2 := apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script}, map[string]string{"AGENTV_CLAUDE_CODE_LOG_FORMAT": "summary"})
		p2, _, err := New(tg2, Options{Env: r.envIn("claude", "fail", "unauthorized.jsonl", "ANTHROPIC_API_KEY="+apiTestKey)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		_, err2 := p2.Invoke(t.Context(), req)
		var ae, ae2 *AgentError
		if !errors.As(err, &ae) || !errors.As(err2, &ae2) {
			t.Fatalf("errors %v, %v; want *AgentError", err, err2)
		}
		for _, s := range []string{"claude exited with code 3: Invalid API key", "(API status 401)", `stderr: "fatal: auth failed for ***"`,
			`stdout: "…`, `\"type\":\"result\"`, "logs: "} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error does not contain %q:\n%v", s, err)
			}
		}
		if ae.ExitCode != 3 || len(ae.Logs) != 2 || len(ae2.Logs) != 3 || !strings.HasSuffix(ae2.Logs[2], ".summary.log") {
			t.Errorf("ExitCode %d, logs %v and %v: want 3, two log files, then three with a summary", ae.ExitCode, ae.Logs, ae2.Logs)
		}
		for _, l := range append(ae.Logs, ae2.Logs...) {
			b, rerr := os.ReadFile(l)
			if rerr != nil {
				t.Errorf("log %s: %v (a failed run keeps its workspace and logs)", l, rerr)
			}
			if strings.Contains(string(b), apiTestKey) {
				t.Errorf("log %s leaks the key", l)
			}
		}
		if strings.Contains(err.Error(), apiTestKey) {
			t.Errorf("error leaks the key")
		}
		t.Cleanup(func() {
			_ = os.RemoveAll(filepath.Dir(ae.Logs[0]))
			_ = os.RemoveAll(filepath.Dir(ae2.Logs[0]))
		})
	})

	t.Run("an error result with exit code 0 is a failure", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		logDir := t.TempDir()
		p, _, err := New(apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script, "log_dir": logDir}, nil),
			Options{Env: r.envIn("claude", "ok", "max_turns.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		var ae *AgentError
		if !errors.As(err, &ae) || ae.ExitCode != 0 || !strings.Contains(err.Error(), "claude reported an error: Reached maximum number of turns (1)") {
			t.Errorf("error %v, want the result's error", err)
		}
	})

	t.Run("the suite's workspace wins over cwd", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		evalDir, ws := t.TempDir(), t.TempDir()
		tg := apiTestTarget(targets.KindClaude, map[string]any{"binary": r.script, "cwd": evalDir}, nil)
		p, _, err := New(tg, Options{Env: r.envIn("claude", "ok", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		wreq := *req
		wreq.Workspace = ws
		if _, err := p.Invoke(t.Context(), &wreq); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(r.read(t, "cwd")); got != ws {
			t.Errorf("cwd = %q, want the workspace %q", got, ws)
		}
	})

	t.Run("log_dir and cwd relative to the eval directory", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		evalDir := t.TempDir()
		if err := os.Mkdir(filepath.Join(evalDir, "work"), 0o755); err != nil {
			t.Fatal(err)
		}
		tg := apiTestTarget(targets.KindClaude, map[string]any{"binary": r.script, "cwd": "work", "logDir": "logs", "logOutputFormat": "summary"}, nil)
		tg.Dir = evalDir // where relative paths resolve without a request's Dir
		p, _, err := New(tg, Options{Env: r.envIn("claude", "ok", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Invoke(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(r.read(t, "cwd")); got != filepath.Join(evalDir, "work") {
			t.Errorf("cwd = %q", got)
		}
		logs, _ := filepath.Glob(filepath.Join(evalDir, "logs", "claude-case_1-attempt1-*"))
		if len(logs) != 3 {
			t.Fatalf("logs = %v, want the stream, stderr and summary logs", logs)
		}
		summary, _ := filepath.Glob(filepath.Join(evalDir, "logs", "*.summary.log"))
		b, _ := os.ReadFile(summary[0])
		for _, s := range []string{"tokens: 1400 in, 7 out", "cost: $0.0050", "final message:\nThe answer is 42."} {
			if !strings.Contains(string(b), s) {
				t.Errorf("summary lacks %q:\n%s", s, b)
			}
		}
	})

	t.Run("a stream longer than the default output cap", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		// A tool output of 6 MiB comes before the result: the answer is at the very end.
		big := `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"` + strings.Repeat("a", 6<<20) + `"}]}}` + "\n" +
			`{"type":"result","subtype":"success","is_error":false,"result":"read it all"}` + "\n"
		stream := filepath.Join(t.TempDir(), "big.jsonl")
		if err := os.WriteFile(stream, []byte(big), 0o600); err != nil {
			t.Fatal(err)
		}
		p, _, err := New(apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script}, nil), Options{Env: r.envIn("claude", "ok", stream)})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Invoke(t.Context(), req)
		if err != nil || resp.Text != "read it all" {
			t.Errorf("Invoke = %v, %v; want the answer after 6 MiB of tool output", resp, err)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		p, _, err := New(apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script, "timeout_seconds": 0.2}, nil),
			Options{Env: r.envIn("claude", "sleep", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		if !errors.Is(err, proc.ErrTimeout) || !strings.Contains(err.Error(), "claude timed out after 200ms") {
			t.Errorf("error %v, want a timeout matching proc.ErrTimeout", err)
		}
	})

	t.Run("no JSON on stdout", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		p, _, err := New(apiTestTarget(targets.KindClaude, map[string]any{"executable": r.script}, nil), Options{Env: r.envIn("claude", "nojson", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		if err == nil || !strings.Contains(err.Error(), "claude printed no answer (no JSON events") {
			t.Errorf("error %v", err)
		}
	})

	t.Run("executable not found", func(t *testing.T) {
		t.Parallel()
		p, _, err := New(apiTestTarget(targets.KindClaude, map[string]any{"executable": "agentv-no-such-claude"}, nil), Options{})
		if err != nil {
			t.Fatal(err)
		}
		hc := p.(HealthChecker).HealthCheck(t.Context())
		_, ierr := p.Invoke(t.Context(), req)
		for _, e := range []error{hc, ierr} {
			if e == nil || !strings.Contains(e.Error(), `executable "agentv-no-such-claude" not found (install Claude Code`) {
				t.Errorf("error %v, want one naming the executable", e)
			}
		}
	})
}

func TestClaudeSettingErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings map[string]any
		wantErr  string
	}{
		{"bad log format", map[string]any{"log_format": "xml"}, "log_format: want json or summary"},
		{"zero timeout", map[string]any{"timeoutSeconds": 0}, "timeoutSeconds: want a positive number"},
		{"missing cwd", map[string]any{"cwd": "/no/such/dir/agentv"}, "cwd: directory"},
		{"max_turns zero", map[string]any{"max_turns": 0}, "max_turns: want a whole number of at least 1"},
		{"max_turns fraction", map[string]any{"maxTurns": 1.5}, "maxTurns: want a whole number"},
		{"negative budget", map[string]any{"max_budget_usd": -1}, "max_budget_usd: want a positive amount"},
		{"bypass not a boolean", map[string]any{"bypass_permissions": "sometimes"}, "bypass_permissions: want true or false"},
		{"model not a string", map[string]any{"model": []any{"a"}}, "model: want a string"},
		{"unset variable in args", map[string]any{"args": []any{"${{ NOPE_UNSET }}"}}, "NOPE_UNSET is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := New(apiTestTarget(targets.KindClaude, tc.settings, nil), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestClaudeSettingsDocumented: every setting the provider reads is known (no warning) and
// documented in providers/README.md.
func TestClaudeSettingsDocumented(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]any{"executable": "claude", "model": "m", "args": []any{"-x"}, "cwd": t.TempDir(), "timeout_seconds": 5,
		"log_dir": t.TempDir(), "log_format": "summary", "system_prompt": "s", "bypass_permissions": true, "max_turns": 3, "max_budget_usd": 1}
	_, warns, err := New(apiTestTarget(targets.KindClaude, settings, nil), Options{Env: []string{}})
	if err != nil || len(warns) > 0 {
		t.Fatalf("New: %v %v", err, warns)
	}
	for k := range settings {
		if !strings.Contains(string(raw), "`"+k+"`") {
			t.Errorf("providers/README.md does not document `%s`", k)
		}
	}
	for _, s := range []string{"**claude-code**", "`claude-cli`", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("providers/README.md lacks %s", s)
		}
	}
}

// TestAgentCredentialsMasked: the credentials an agent CLI reads from the environment are masked
// in its errors and logs although no setting names them.
func TestAgentCredentialsMasked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind, dir, stream, variable string
	}{
		{targets.KindCodex, "codex", "unauthorized.jsonl", "OPENAI_API_KEY"},
		{targets.KindCodex, "codex", "unauthorized.jsonl", "CODEX_API_KEY"},
		{targets.KindClaude, "claude", "unauthorized.jsonl", "ANTHROPIC_API_KEY"},
		{targets.KindClaude, "claude", "unauthorized.jsonl", "ANTHROPIC_AUTH_TOKEN"},
		{targets.KindClaude, "claude", "unauthorized.jsonl", "CLAUDE_CODE_OAUTH_TOKEN"},
	}
	for _, tc := range tests {
		t.Run(tc.kind+" "+tc.variable, func(t *testing.T) {
			t.Parallel()
			r := newCodexFakeRun(t)
			p, _, err := New(apiTestTarget(tc.kind, map[string]any{"executable": r.script}, nil),
				Options{Env: r.envIn(tc.dir, "fail", tc.stream, tc.variable+"="+apiTestKey)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Invoke(t.Context(), &Request{EvalID: "c"})
			var ae *AgentError
			if !errors.As(err, &ae) || !strings.Contains(ae.Stderr, "auth failed for ***") {
				t.Fatalf("error %v, want the key in stderr masked", err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(ae.Logs[0])) })
			for _, l := range ae.Logs {
				if b, _ := os.ReadFile(l); strings.Contains(string(b), apiTestKey) {
					t.Errorf("log %s leaks %s", l, tc.variable)
				}
			}
		})
	}
}

// A stream that splits one assistant turn into very many text events is read in time and
// memory proportional to its size: joining the texts once, not copying the turn per event.
//
//nolint:paralleltest // it measures the bytes allocated, which parallel tests would add to
func TestClaudeParseStreamManyBlocksOfOneTurn(t *testing.T) {
	const n = 20000
	var b bytes.Buffer
	for range n {
		b.WriteString(`{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"0123456789"}]}}` + "\n")
	}
	in := b.Bytes()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := claudeParseStream(in)
	runtime.ReadMemStats(&after)
	if len(s.Messages) != 1 || len(s.Messages[0].Text) != n*11-1 || s.Final != s.Messages[0].Text {
		t.Fatalf("%d messages, text of %d bytes", len(s.Messages), len(s.Final))
	}
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(64*len(in)); got > limit {
		t.Errorf("parsing %d bytes allocated %d bytes, more than %d", len(in), got, limit)
	}
}
