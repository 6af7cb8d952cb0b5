package providers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// cliTestTarget builds a cli target whose eval directory is dir, as targets.Load stores settings.
// mapEnv is a targets.LookupEnv over a fixed map.
func mapEnv(m map[string]string) targets.LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func cliTestTarget(dir string, settings map[string]any) *targets.Target {
	t := &targets.Target{Name: "agent", Kind: targets.KindCLI, Provider: "cli", Dir: dir, Settings: map[string]*targets.Setting{}}
	for k, v := range settings {
		t.Settings[targets.SnakeCase(k)] = &targets.Setting{Key: k, Value: v}
	}
	if b, ok := settings["provider_batching"].(bool); ok {
		t.ProviderBatching = b
	}
	return t
}

func cliTestNew(t *testing.T, dir string, settings map[string]any, opts Options) *cliProvider {
	t.Helper()
	p, warns, err := New(cliTestTarget(dir, settings), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if len(warns) > 0 {
		t.Fatalf("warnings: %v", warns)
	}
	switch x := p.(type) {
	case *cliProvider:
		return x
	case *cliBatchProvider:
		return x.cliProvider
	}
	t.Fatalf("unexpected provider %T", p)
	return nil
}

func cliWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCLIArgumentsArriveIntact: values with quotes, command substitutions, backticks and
// newlines reach the command as single, unmodified arguments and run nothing.
func TestCLIArgumentsArriveIntact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliWrite(t, filepath.Join(dir, "argv.sh"), "out=$1; shift\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$out\"\nprintf 'done\\n'\n")
	files := []string{filepath.Join(dir, "a b.txt"), filepath.Join(dir, "it's.md")}
	p := cliTestNew(t, dir, map[string]any{
		"command_template": "sh ./argv.sh ./argv.bin {PROMPT} {GUIDELINES} {EVAL_ID} {ATTEMPT} {FILES}",
		"filesFormat":      "--file {path}",
	}, Options{Timeout: time.Minute})
	prompt := "it's \"quoted\" $(touch pwned1) `touch pwned2` ${HOME}\nsecond line\t'' \\ end;touch pwned3 #"
	req := &Request{EvalID: "id with space;touch pwned4", Attempt: 2, Question: prompt, Guidelines: "", Files: files}
	resp, err := p.Invoke(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "done" {
		t.Errorf("answer %q, want stdout trimmed", resp.Text)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "argv.bin"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	want := []string{prompt, "", req.EvalID, "2", "--file", files[0], "--file", files[1]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	for i := 1; i <= 4; i++ {
		if _, err := os.Stat(filepath.Join(dir, "pwned"+strconv.Itoa(i))); err == nil {
			t.Errorf("pwned%d exists: a value was executed", i)
		}
	}
	if resp.DurationMS == nil || *resp.DurationMS < 0 {
		t.Errorf("measured duration missing: %v", resp.DurationMS)
	}
}

func TestCLIOutputFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := cliTestNew(t, dir, map[string]any{
		"command_template": "printf '%s' {OUTPUT_FILE} > ./path.txt; printf 'from file\\r\\n' > {OUTPUT_FILE}; echo stdout is ignored",
	}, Options{})
	resp, err := p.Invoke(t.Context(), &Request{EvalID: "../odd id"})
	if err != nil {
		t.Fatal(err)
	}
	// The file's text as written, but for its line ends, as AgentV reads it.
	if resp.Text != "from file\n" {
		t.Errorf("answer %q, want %q", resp.Text, "from file\n")
	}
	// A plain-text answer reaches judges as one assistant message, as AgentV sends it.
	want := []suite.Message{{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: "from file\n"}}}
	if diff := cmp.Diff(want, resp.OutputMessages); diff != "" {
		t.Errorf("output messages (-want +got):\n%s", diff)
	}
	path, _ := os.ReadFile(filepath.Join(dir, "path.txt"))
	if !strings.HasSuffix(string(path), "/.._odd_id.json") {
		t.Errorf("output file %q", path)
	}
	if _, err := os.Stat(string(path)); !os.IsNotExist(err) {
		t.Errorf("output file not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(string(path))); !os.IsNotExist(err) {
		t.Errorf("output directory not removed: %v", err)
	}

	p = cliTestNew(t, dir, map[string]any{"command_template": "echo forgot {OUTPUT_FILE}; echo why >&2"}, Options{})
	_, err = p.Invoke(t.Context(), &Request{EvalID: "x"})
	if err == nil || !strings.Contains(err.Error(), "did not write {OUTPUT_FILE}") || !strings.Contains(err.Error(), "why") {
		t.Errorf("missing output file: %v", err)
	}
}

// {PROMPT_FILE} is a temporary file holding the prompt, named and removed as AgentV 4.42.4
// does (providers/cli.ts, buildTemplateValues and cleanupTempFile): the command sees the prompt
// byte for byte, whatever it holds, and the file is gone afterwards unless keep_temp_files.
func TestCLIPromptFile(t *testing.T) {
	t.Parallel()
	const prompt = "it's \"x\" $(touch pwned)\nline two"
	cmd := "cat {PROMPT_FILE} > {OUTPUT_FILE}; printf '%s' {PROMPT_FILE} > ./path.txt"
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := cliTestNew(t, dir, map[string]any{"command": cmd, "keep_temp_files": keep}, Options{})
			resp, err := p.Invoke(t.Context(), &Request{EvalID: "case/1", Question: prompt})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != prompt {
				t.Errorf("answer %q, want the prompt %q", resp.Text, prompt)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "path.txt"))
			if err != nil {
				t.Fatal(err)
			}
			path := string(raw)
			if filepath.Dir(path) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(path), "agentv-case_1-") || !strings.HasSuffix(path, ".prompt.txt") {
				t.Errorf("prompt file %q, want agentv-case_1-*.prompt.txt in %s", path, os.TempDir())
			}
			_, err = os.Stat(path)
			if keep {
				if err != nil {
					t.Errorf("keep_temp_files: prompt file removed: %v", err)
				}
				_ = os.Remove(path)
			} else if !os.IsNotExist(err) {
				t.Errorf("prompt file not removed: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Error("the prompt was executed")
			}
		})
	}
	// A batch's file holds its cases, one JSON object a line, as AgentV 4.x documents it (its
	// code writes the file empty).
	dir := t.TempDir()
	cliWrite(t, filepath.Join(dir, "out.jsonl"), `{"id": "a", "text": "ok"}`+"\n"+`{"id": "b", "text": "ok"}`+"\n")
	bp := cliBatchNew(t, dir, "cp {PROMPT_FILE} ./cases.jsonl; cp ./out.jsonl {OUTPUT_FILE}")
	reqs := []*Request{{EvalID: "a", Question: "hello <b>\nthere"}, {EvalID: "b", Question: "", Files: []string{"/x/y.txt"}}}
	if _, err := bp.InvokeBatch(t.Context(), reqs); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	want := `{"id":"a","input":"hello <b>\nthere"}` + "\n" + `{"id":"b","input":"","input_files":["/x/y.txt"]}` + "\n"
	if string(got) != want {
		t.Errorf("batch prompt file:\n%s\nwant:\n%s", got, want)
	}
}

func TestCLIJSONOutputWithMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cliWrite(t, filepath.Join(dir, "answer.json"), `{
  "output_messages": [
    {"role": "assistant", "toolCalls": [{"tool": "search", "input": {"riskLevel": "high"}}]},
    {"role": "tool", "content": "result"},
    {"role": "assistant", "content": "final answer"}
  ],
  "token_usage": {"input": 10, "output": 5, "cached": 2},
  "cost_usd": 0.25,
  "duration_ms": 1234.5
}`)
	var logs []string
	var mu sync.Mutex
	p := cliTestNew(t, dir, map[string]any{"command_template": "cat ./answer.json > {OUTPUT_FILE}"}, Options{
		Logf: func(f string, a ...any) { mu.Lock(); logs = append(logs, f); mu.Unlock() },
	})
	resp, err := p.Invoke(t.Context(), &Request{EvalID: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "final answer" || len(resp.OutputMessages) != 3 {
		t.Fatalf("text %q, %d messages", resp.Text, len(resp.OutputMessages))
	}
	if got := string(resp.OutputMessages[0].ToolCalls); got != `[{"tool":"search","input":{"riskLevel":"high"}}]` {
		t.Errorf("tool calls %s", got)
	}
	if resp.Usage == nil || resp.Usage.Input != 10 || resp.Usage.Output != 5 || resp.Usage.Cached == nil || *resp.Usage.Cached != 2 {
		t.Errorf("usage %+v", resp.Usage)
	}
	if resp.CostUSD == nil || *resp.CostUSD != 0.25 || resp.DurationMS == nil || *resp.DurationMS != 1234.5 {
		t.Errorf("cost %v duration %v", resp.CostUSD, resp.DurationMS)
	}
	if len(logs) > 0 {
		t.Errorf("unexpected logs %v", logs)
	}
}

func TestCLIPriceFillsCost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tg := cliTestTarget(dir, map[string]any{"command_template": `echo '{"text":"hi","token_usage":{"input":1000000,"output":2000000}}'`})
	tg.Price = &targets.Price{InputPerMTok: 3, OutputPerMTok: 15}
	p, _, err := New(tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Invoke(t.Context(), &Request{})
	if err != nil || resp.Text != "hi" || resp.CostUSD == nil || *resp.CostUSD != 33 {
		t.Errorf("resp %+v err %v", resp, err)
	}
}

func TestCLIFailingCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, tmpl, want string }{
		{"stderr", "echo partial; echo boom >&2; exit 3", `cli target "agent": command exited with code 3: boom`},
		{"stdout only", "echo only-out; exit 4", "exited with code 4 (no stderr; stdout: only-out)"},
		{"silent", "exit 5", "exited with code 5 and printed nothing on stderr"},
		{"not found", "definitely-not-a-command-xyz {PROMPT}", "exited with code 127"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := cliTestNew(t, dir, map[string]any{"command_template": tc.tmpl}, Options{})
			_, err := p.Invoke(t.Context(), &Request{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, proc.ErrTimeout) {
				t.Error("a failure looks like a timeout (the runner would retry it)")
			}
		})
	}
}

func TestCLICancelIsNotATimeout(t *testing.T) {
	t.Parallel()
	p := cliTestNew(t, t.TempDir(), map[string]any{"command_template": "sleep 100"}, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := p.Invoke(ctx, &Request{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, proc.ErrTimeout) {
		t.Errorf("err %v", err)
	}
}

func TestCLIWorkingDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	for _, tc := range []struct {
		name   string
		cwd    any
		reqDir string
		want   string
	}{
		{"eval dir by default", nil, "", dir},
		{"relative to eval dir", "sub", "", filepath.Join(dir, "sub")},
		{"request dir wins", nil, other, other},
		{"absolute", other, dir, other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			settings := map[string]any{"command_template": "pwd -P"}
			if tc.cwd != nil {
				settings["cwd"] = tc.cwd
			}
			p := cliTestNew(t, dir, settings, Options{})
			resp, err := p.Invoke(t.Context(), &Request{Dir: tc.reqDir})
			want, _ := filepath.EvalSymlinks(tc.want)
			if err != nil || resp.Text != want {
				t.Errorf("pwd %q err %v, want %q", resp.Text, err, want)
			}
		})
	}
	p := cliTestNew(t, dir, map[string]any{"command_template": "pwd", "cwd": "missing"}, Options{})
	if _, err := p.Invoke(t.Context(), &Request{}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("missing cwd: %v", err)
	}
}

func TestCLIChildEnvironment(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=" + os.Getenv("PATH"), "GITHUB_TOKEN=ghs_secret", "KEEP=kept"}
	p := cliTestNew(t, t.TempDir(), map[string]any{"command_template": `echo "${GITHUB_TOKEN:-none} $KEEP"`}, Options{Env: env})
	if resp, err := p.Invoke(t.Context(), &Request{}); err != nil || resp.Text != "none kept" {
		t.Errorf("resp %+v err %v", resp, err)
	}
	// A target that references the token keeps it.
	tg := cliTestTarget(t.TempDir(), map[string]any{"command_template": `echo "${GITHUB_TOKEN:-none}"`, "healthcheck": map[string]any{"type": "http", "url": "${{ GITHUB_TOKEN }}"}})
	tg.Env = mapEnv(map[string]string{"GITHUB_TOKEN": "https://127.0.0.1/x"})
	pp, _, err := New(tg, Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := pp.Invoke(t.Context(), &Request{}); err != nil || resp.Text != "ghs_secret" {
		t.Errorf("resp %+v err %v", resp, err)
	}
}

func TestCLINewErrors(t *testing.T) {
	t.Parallel()
	_, _, err := New(cliTestTarget("", map[string]any{"command_template": "${{ AGENT_CMD }}"}), Options{})
	var ue *targets.UnsetVarError
	if !errors.As(err, &ue) || ue.Var != "AGENT_CMD" || ue.Field != "command_template" {
		t.Errorf("want *targets.UnsetVarError for AGENT_CMD, got %v", err)
	}
	tg := cliTestTarget("", map[string]any{"command_template": "${{ AGENT_CMD }}"})
	tg.Env = mapEnv(map[string]string{"AGENT_CMD": "agent {MODEL}"})
	if _, _, err := New(tg, Options{}); err == nil || !strings.Contains(err.Error(), "unsupported placeholder {MODEL}") {
		t.Errorf("resolved template not validated: %v", err)
	}
	tg = cliTestTarget("", map[string]any{"command_template": "x", "cwd": "${{ UNSET_CWD }}", "timeout_seconds": "${{ UNSET_T }}"})
	if _, _, err := New(tg, Options{}); err != nil {
		t.Errorf("optional settings with unset variables should count as absent: %v", err)
	}
	if p, _, _ := New(cliTestTarget("", map[string]any{"command_template": "x"}), Options{}); p != nil {
		if _, ok := p.(BatchProvider); ok {
			t.Error("a target without provider_batching must not batch")
		}
	}
}

func TestCLITimeoutChoice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ own, opt, want time.Duration }{
		{0, 0, 0}, {0, time.Second, time.Second}, {2 * time.Second, 0, 2 * time.Second},
		{2 * time.Second, time.Second, time.Second}, {time.Second, 2 * time.Second, time.Second},
	} {
		p := &cliProvider{opts: Options{Timeout: tc.opt}}
		if got := p.timeout(tc.own); got != tc.want {
			t.Errorf("timeout(own %v, opt %v) = %v, want %v", tc.own, tc.opt, got, tc.want)
		}
	}
}

// What the command leaves at {OUTPUT_FILE} is read only when it is a regular file: a FIFO no
// one writes to used to block the run forever, a link to /dev/zero to fill memory.
func TestCLIOutputFileNotRegular(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, command, want string
	}{
		{"fifo", "mkfifo {OUTPUT_FILE}", "named pipe (FIFO), not a regular file"},
		{"link to /dev/zero", "ln -s /dev/zero {OUTPUT_FILE}", "symbolic link to /dev/zero) is a character device"},
		{"directory", "mkdir {OUTPUT_FILE}", "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := cliTestNew(t, t.TempDir(), map[string]any{"command_template": tt.command}, Options{})
			done := make(chan error, 1)
			go func() {
				_, err := p.Invoke(t.Context(), &Request{EvalID: "x"})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "could not read {OUTPUT_FILE}") || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("Invoke error = %v, want one containing %q", err, tt.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Invoke blocked on the output file")
			}
		})
	}
}

// AgentV 4.x writes a cli target's template as `command` and a command healthcheck as
// {command, cwd} without a type; both read as AgentV 2.5's spellings do.
func TestCLIAgentV4Spellings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tg := cliTestTarget(dir, map[string]any{
		"command":     "printf %s {PROMPT}",
		"healthcheck": map[string]any{"command": "true", "cwd": "."},
	})
	cfg, errs := targets.ParseCLI(tg, true, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if cfg.Template != "printf %s {PROMPT}" || cfg.Health == nil || cfg.Health.Kind != "command" || cfg.Health.Template != "true" || cfg.Health.Cwd != "." {
		t.Errorf("config %+v health %+v", cfg, cfg.Health)
	}
	p := cliTestNew(t, dir, map[string]any{"command": "printf %s {PROMPT}"}, Options{})
	resp, err := p.Invoke(t.Context(), &Request{Question: "hello", EvalID: "a"})
	if err != nil || resp.Text != "hello" {
		t.Errorf("answer %+v, %v; want hello", resp, err)
	}
	// command_template wins when both are set.
	cfg, errs = targets.ParseCLI(cliTestTarget(dir, map[string]any{"command_template": "echo 2.5", "command": "echo 4.x"}), true, nil)
	if len(errs) > 0 || cfg.Template != "echo 2.5" {
		t.Errorf("both spellings: template %q, errors %v", cfg.Template, errs)
	}
}
