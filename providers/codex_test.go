package providers

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// codexGolden compares got with a golden file; `go test -update` rewrites it. The flag is the
// package's shared -update (looked up, so this file does not depend on who defines it).
func codexGolden(t *testing.T, path, got string) {
	t.Helper()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./providers -update` to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestCodexParseFixtures(t *testing.T) {
	t.Parallel()
	c := func(n int64) *int64 { return &n }
	zero := 0
	tests := []struct {
		file     string
		final    string
		usage    *Usage
		commands []codexCommand
		failure  string
	}{
		{file: "answer.jsonl", final: "The answer is 42.", usage: &Usage{Input: 1200, Output: 7, Cached: c(200)}},
		{file: "tool_call.jsonl", final: "I read prompt.md. Done.", usage: &Usage{Input: 2500, Output: 29, Cached: c(1000)},
			commands: []codexCommand{{Command: "/bin/bash -lc 'cat prompt.md'", ExitCode: &zero, Status: "completed"}}},
		{file: "unauthorized.jsonl", failure: "unexpected status 401 Unauthorized: Incorrect API key provided: ***"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join("testdata", "codex", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			s := codexParseStream(raw)
			if s.Final != tc.final {
				t.Errorf("Final = %q, want %q", s.Final, tc.final)
			}
			if diff := cmp.Diff(tc.usage, s.Usage); diff != "" {
				t.Errorf("Usage (-want +got):\n%s", diff)
			}
			// The command output is the real shell's (environment dependent): compare the rest.
			for i := range s.Commands {
				s.Commands[i].Output = ""
			}
			if diff := cmp.Diff(tc.commands, s.Commands); diff != "" {
				t.Errorf("Commands (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(s.Failure, tc.failure) || (tc.failure == "") != (s.Failure == "") {
				t.Errorf("Failure = %q, want prefix %q", s.Failure, tc.failure)
			}
			if s.Skipped != 0 {
				t.Errorf("skipped %d lines of a real stream", s.Skipped)
			}
		})
	}
}

func TestCodexParseShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, final, failure string
	}{
		{"legacy item_type", `{"type":"item.completed","item":{"id":"i","item_type":"assistant_message","text":"old"}}`, "old", ""},
		{"legacy msg", "{\"msg\":{\"type\":\"agent_message\",\"message\":\"m1\"}}\n{\"msg\":{\"type\":\"task_complete\",\"last_agent_message\":\"m2\"}}", "m2", ""},
		{"last message wins", `{"type":"item.completed","item":{"type":"agent_message","text":"first"}}` + "\n" +
			`{"type":"item.completed","item":{"type":"agent_message","text":"second"}}`, "second", ""},
		{"banner lines are skipped", "Codex v1 starting\n" + `{"type":"item.completed","item":{"type":"agent_message","text":"ok"}}` + "\nbye", "ok", ""},
		{"JSON array of events", `[{"type":"item.completed","item":{"type":"agent_message","text":"arr"}}]`, "arr", ""},
		{"error then turn.failed", `{"type":"error","message":"Reconnecting... 1/5"}` + "\n" +
			`{"type":"turn.failed","error":{"message":"quota exceeded"}}` + "\n" + `{"type":"error","message":"late"}`, "", "quota exceeded"},
		{"only an error", `{"type":"error","message":"stream disconnected"}`, "", "stream disconnected"},
		{"reasoning is not the answer", `{"type":"item.completed","item":{"type":"reasoning","text":"thinking"}}`, "", ""},
		{"empty", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := codexParseStream([]byte(tc.in))
			if s.Final != tc.final || s.Failure != tc.failure {
				t.Errorf("Final, Failure = %q, %q; want %q, %q", s.Final, s.Failure, tc.final, tc.failure)
			}
		})
	}
}

func FuzzCodexParseStream(f *testing.F) {
	for _, name := range []string{"answer.jsonl", "tool_call.jsonl", "unauthorized.jsonl"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "codex", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"msg":{"type":"task_complete","last_agent_message":"x"}}]`))
	f.Add([]byte("{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":-1}}\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := codexParseStream(data)
		if s.Final != "" && s.Events == 0 {
			t.Errorf("a final message without any event: %+v", s)
		}
	})
}

// codexFakeScript is a stand-in codex: it records argv, working directory, stdin, the workspace's
// prompt.md and its environment, then behaves as CODEX_FAKE_MODE says.
const codexFakeScript = `#!/bin/sh
rec="$CODEX_FAKE_REC"
printf '%s\n' "$@" > "$rec/argv"
pwd > "$rec/cwd"
cat > "$rec/stdin"
[ -f prompt.md ] && cp prompt.md "$rec/prompt.md"
env > "$rec/env"
case "$CODEX_FAKE_MODE" in
ok) cat "$CODEX_FAKE_STREAM" ;;
fail) cat "$CODEX_FAKE_STREAM"; echo "fatal: auth failed for $CODEX_FAKE_SECRET" >&2; exit 3 ;;
sleep) exec sleep 30 ;;
nojson) echo "codex: unknown option --json" ;;
esac
`

type codexFakeRun struct {
	dir, rec, script string
}

func newCodexFakeRun(t *testing.T) *codexFakeRun {
	t.Helper()
	r := &codexFakeRun{dir: t.TempDir()}
	r.rec = filepath.Join(r.dir, "rec")
	r.script = filepath.Join(r.dir, "fake-codex")
	if err := os.Mkdir(r.rec, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.script, []byte(codexFakeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *codexFakeRun) env(mode, stream string, extra ...string) []string {
	return r.envIn("codex", mode, stream, extra...)
}

// envIn is env with the stream read from testdata/<dir> (or an absolute path).
func (r *codexFakeRun) envIn(dir, mode, stream string, extra ...string) []string {
	abs := stream
	if !filepath.IsAbs(stream) {
		abs, _ = filepath.Abs(filepath.Join("testdata", dir, stream))
	}
	return append([]string{"PATH=" + os.Getenv("PATH"), "CODEX_FAKE_REC=" + r.rec, "CODEX_FAKE_MODE=" + mode,
		"CODEX_FAKE_STREAM=" + abs, "CODEX_FAKE_SECRET=" + apiTestKey}, extra...)
}

func (r *codexFakeRun) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.rec, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCodexProvider(t *testing.T) {
	t.Parallel()
	req := &Request{EvalID: "case/1", Attempt: 1, Question: "Fix the bug in <file: path=\"src/app.go\">.",
		GuidelinePaths: []string{"/repo/.github/style.instructions.md"}, InputFiles: []string{"/repo/src/app.go"}}

	t.Run("invocation, workspace, prompt and answer", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		tg := apiTestTarget(targets.KindCodex, map[string]any{"command": r.script,
			"arguments": []any{"--model", "${{ CODEX_MODEL }}", "-c", "x=1"}}, map[string]string{"CODEX_MODEL": "o4-mini"})
		tg.Price = &targets.Price{InputPerMTok: 1, OutputPerMTok: 4}
		p, warns, err := New(tg, Options{Env: r.env("ok", "tool_call.jsonl", "GITHUB_TOKEN=ghs_secret", "KEEP_ME=1")})
		if err != nil || len(warns) > 0 {
			t.Fatalf("New: %v %v", err, warns)
		}
		resp, err := p.Invoke(t.Context(), req)
		if err != nil {
			t.Fatalf("Invoke: %v", err)
		}
		wantArgv := "--ask-for-approval\nnever\nexec\n--json\n--color\nnever\n--skip-git-repo-check\n--model\no4-mini\n-c\nx=1\n-\n"
		if diff := cmp.Diff(wantArgv, r.read(t, "argv")); diff != "" {
			t.Errorf("argv (-want +got):\n%s", diff)
		}
		doc := codexPromptDocument(codexDefaultSystem, req)
		if r.read(t, "stdin") != doc || r.read(t, "prompt.md") != doc {
			t.Errorf("stdin and prompt.md must both be the prompt document:\n%s", r.read(t, "stdin"))
		}
		ws := strings.TrimSpace(r.read(t, "cwd"))
		if !strings.Contains(filepath.Base(ws), "agentv-codex-") {
			t.Errorf("cwd = %q, want the temporary workspace", ws)
		}
		if _, err := os.Stat(ws); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("workspace %s left behind after a success", ws)
		}
		env := r.read(t, "env")
		if strings.Contains(env, "GITHUB_TOKEN") || !strings.Contains(env, "KEEP_ME=1") {
			t.Errorf("child env: GITHUB_TOKEN must be dropped, other variables kept:\n%s", env)
		}
		if resp.Text != "I read prompt.md. Done." || resp.Usage == nil || resp.Usage.Input != 2500 {
			t.Errorf("resp = %q %+v", resp.Text, resp.Usage)
		}
		if resp.CostUSD == nil || *resp.CostUSD != (2500*1.0+29*4.0)/1e6 {
			t.Errorf("CostUSD = %v", resp.CostUSD)
		}
		var calls []map[string]any
		if err := json.Unmarshal(resp.OutputMessages[0].ToolCalls, &calls); err != nil || len(calls) != 1 ||
			calls[0]["tool"] != "command_execution" {
			t.Errorf("tool calls = %s (%v)", resp.OutputMessages[0].ToolCalls, err)
		}
	})

	// For a 4.x file, codex gets the prompt document AgentV 4.42.4 builds, after the target's
	// system_prompt alone (providers/codex.ts, lines 100–103): no default instructions.
	t.Run("4.x prompt document", func(t *testing.T) {
		t.Parallel()
		for _, system := range []string{"", "Be terse."} {
			r := newCodexFakeRun(t)
			settings := map[string]any{"executable": r.script}
			if system != "" {
				settings["system_prompt"] = system
			}
			p, _, err := New(apiTestTarget(targets.KindCodex, settings, nil), Options{Env: r.env("ok", "tool_call.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			v4 := *req
			v4.Agent = agentRulesOf(suite.Dialect4)
			if _, err := p.Invoke(t.Context(), &v4); err != nil {
				t.Fatal(err)
			}
			want := "Read all input files:\n* [style.instructions.md](file:///repo/.github/style.instructions.md)\n" +
				"* [app.go](file:///repo/src/app.go).\nIf any file is missing, fail with ERROR: missing-file <filename> and stop.\n" +
				"Then apply system_instructions on the user query below.\n\n[[ ## user_query ## ]]\n\n" + req.Question
			if system != "" {
				want = system + "\n\n" + want
			}
			if diff := cmp.Diff(want, r.read(t, "stdin")); diff != "" {
				t.Errorf("system_prompt %q: prompt document (-want +got):\n%s", system, diff)
			}
		}
	})

	t.Run("failure carries exit code, stderr, stdout and kept logs, redacted", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		tg := apiTestTarget(targets.KindCodex, map[string]any{"executable": r.script, "log_format": "summary"}, nil)
		tg.Redactor.Add(apiTestKey)
		p, _, err := New(tg, Options{Env: r.env("fail", "unauthorized.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		var ce *AgentError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v, want *AgentError", err)
		}
		for _, s := range []string{"codex exited with code 3", "unexpected status 401", `stderr: "fatal: auth failed for ***"`,
			`stdout: "{\"type\":\"thread.started\"`, "logs: ", ".summary.log"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error does not contain %q:\n%v", s, err)
			}
		}
		if ce.ExitCode != 3 || len(ce.Logs) != 3 {
			t.Errorf("ExitCode %d, logs %v: want 3 and three log files", ce.ExitCode, ce.Logs)
		}
		for _, l := range ce.Logs {
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
		t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(ce.Logs[0])) })
	})

	t.Run("log_dir and cwd relative to the eval directory, token kept when referenced", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		evalDir := t.TempDir()
		if err := os.Mkdir(filepath.Join(evalDir, "work"), 0o755); err != nil {
			t.Fatal(err)
		}
		tg := apiTestTarget(targets.KindCodex, map[string]any{"binary": r.script, "cwd": "work", "logDir": "logs",
			"args": []any{"${{ GITHUB_TOKEN }}"}}, map[string]string{"GITHUB_TOKEN": "ghs_x123"})
		tg.Dir = evalDir // where relative paths resolve without a request's Dir
		p, _, err := New(tg, Options{Env: r.env("ok", "answer.jsonl", "GITHUB_TOKEN=ghs_x123")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Invoke(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(r.read(t, "cwd")); got != filepath.Join(evalDir, "work") {
			t.Errorf("cwd = %q", got)
		}
		logs, _ := filepath.Glob(filepath.Join(evalDir, "logs", "codex-case_1-attempt1-*"))
		if len(logs) != 2 {
			t.Errorf("logs = %v, want the stream and stderr logs", logs)
		}
		if !strings.Contains(r.read(t, "env"), "GITHUB_TOKEN=ghs_x123") {
			t.Errorf("a target that references GITHUB_TOKEN must pass it on")
		}
	})

	t.Run("cwd relative to the request's eval folder, not the targets file's", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		repo := t.TempDir()
		evalDir := filepath.Join(repo, "evals", "sub")
		for _, d := range []string{filepath.Join(repo, ".agentv"), filepath.Join(repo, "evals", "work")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		tg := apiTestTarget(targets.KindCodex, map[string]any{"binary": r.script, "cwd": "../work"}, nil)
		tg.Dir = filepath.Join(repo, ".agentv") // where the targets file is; "../work" is not there
		p, _, err := New(tg, Options{Env: r.env("ok", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		hc := p.(HealthChecker)
		if err := hc.HealthCheck(WithEvalDir(t.Context(), evalDir)); err != nil {
			t.Fatalf("healthcheck for %s: %v", evalDir, err)
		}
		if err := hc.HealthCheck(WithEvalDir(t.Context(), repo)); err == nil || !strings.Contains(err.Error(), "cwd") {
			t.Errorf("healthcheck for %s, which has no ../work: %v, want a cwd error", repo, err)
		}
		in := *req
		in.Dir = evalDir
		if _, err := p.Invoke(t.Context(), &in); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(r.read(t, "cwd")); got != filepath.Join(repo, "evals", "work") {
			t.Errorf("cwd = %q, want %s", got, filepath.Join(repo, "evals", "work"))
		}
	})

	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		p, _, err := New(apiTestTarget(targets.KindCodex, map[string]any{"executable": r.script, "timeout_seconds": 0.2}, nil),
			Options{Env: r.env("sleep", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		if !errors.Is(err, proc.ErrTimeout) || !strings.Contains(err.Error(), "timed out after 200ms") {
			t.Errorf("error %v, want a timeout matching proc.ErrTimeout", err)
		}
	})

	t.Run("no JSON on stdout", func(t *testing.T) {
		t.Parallel()
		r := newCodexFakeRun(t)
		p, _, err := New(apiTestTarget(targets.KindCodex, map[string]any{"executable": r.script}, nil), Options{Env: r.env("nojson", "answer.jsonl")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Invoke(t.Context(), req)
		if err == nil || !strings.Contains(err.Error(), "no final assistant message (no JSON events") {
			t.Errorf("error %v", err)
		}
	})

	t.Run("executable not found", func(t *testing.T) {
		t.Parallel()
		p, _, err := New(apiTestTarget(targets.KindCodex, map[string]any{"executable": "agentv-no-such-codex"}, nil), Options{})
		if err != nil {
			t.Fatal(err)
		}
		hc := p.(HealthChecker).HealthCheck(t.Context())
		_, ierr := p.Invoke(t.Context(), req)
		for _, e := range []error{hc, ierr} {
			if e == nil || !strings.Contains(e.Error(), `executable "agentv-no-such-codex" not found`) {
				t.Errorf("error %v, want one naming the executable", e)
			}
		}
	})
}

func TestCodexSettingErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings map[string]any
		wantErr  string
	}{
		{"bad log format", map[string]any{"log_format": "xml"}, "log_format: want json or summary"},
		{"zero timeout", map[string]any{"timeoutSeconds": 0}, "timeoutSeconds: want a positive number"},
		{"missing cwd", map[string]any{"cwd": "/no/such/dir/agentv"}, "cwd: directory"},
		{"args must be strings", map[string]any{"args": []any{map[string]any{"a": 1}}}, "args: item 1: want a string"},
		{"unset variable in args", map[string]any{"args": []any{"${{ NOPE_UNSET }}"}}, "NOPE_UNSET is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := New(apiTestTarget(targets.KindCodex, tc.settings, nil), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestCodexPromptDocumentGolden(t *testing.T) {
	t.Parallel()
	req := &Request{Question: "Fix the failing test in <file: path=\"src/app.go\">.",
		GuidelinePaths: []string{"/repo/.github/instructions/go.instructions.md"},
		InputFiles:     []string{"/repo/src/app.go", "/repo/docs/design notes.md"}}
	codexGolden(t, filepath.Join("testdata", "codex", "prompt.golden.md"), codexPromptDocument(codexDefaultSystem, req))
}

func TestRetrySettingsAreCommon(t *testing.T) {
	t.Parallel()
	_, warns, err := New(apiTestTarget(targets.KindCodex, map[string]any{"maxRetries": 2, "retry_status_codes": []any{429}}, nil), Options{})
	if err != nil || len(warns) != 0 {
		t.Errorf("codex target with retry settings: %v %v, want no warning (retry settings are common to every target)", err, warns)
	}
}
