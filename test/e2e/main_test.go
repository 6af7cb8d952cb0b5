package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/agentv/action/results"
)

// agentvBin is the binary under test, built once in TestMain.
var agentvBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentv-e2e-")
	if err != nil {
		panic(err)
	}
	agentvBin = filepath.Join(dir, "agentv")
	build := exec.Command("go", "build", "-o", agentvBin, "./cmd/agentv")
	build.Dir = moduleRoot()
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("could not build agentv: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runResult is one run of the binary.
type runResult struct {
	code           int
	stdout, stderr string
	records        []*results.Record
	outDir         string
}

func (r runResult) byID() map[string]*results.Record {
	m := map[string]*results.Record{}
	for _, rec := range r.records {
		m[rec.EvalID] = rec
	}
	return m
}

// agentv runs the binary in dir with args; results go to a fresh temp dir.
func agentv(t *testing.T, dir string, env []string, args ...string) runResult {
	t.Helper()
	out := t.TempDir()
	if len(args) > 0 && args[0] == "eval" {
		args = append(args, "--out", filepath.Join(out, "results.jsonl"))
	}
	cmd := exec.Command(agentvBin, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	return runOutcome(t, err, so.String(), se.String(), out)
}

// runOutcome is what a finished agentv run left: its exit code (err from Wait), output and the
// case records of the results file in out.
func runOutcome(t *testing.T, err error, stdout, stderr, out string) runResult {
	t.Helper()
	res := runResult{stdout: stdout, stderr: stderr, outDir: out}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run agentv: %v", err)
	}
	if recs, err := readRecords(filepath.Join(out, "results.jsonl")); err == nil {
		res.records = recs
	}
	return res
}

// cleanEnv is the test process environment without CI variables that would switch modes.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "INPUT_") || name == "CI" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func repoRoot(t *testing.T) string {
	t.Helper()
	return moduleRoot()
}

// moduleRoot is the repository's root: this file is in test/e2e.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs it)", tool)
		}
	}
}

// The quick start (an AgentV 4.x suite) and the same suite written for AgentV 2.5, which the
// README's 2.5 section points at, both run offline with the same verdicts.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	for _, evals := range []string{"examples/quickstart/evals", "examples/agentv-2.5/evals"} {
		t.Run(evals, func(t *testing.T) {
			t.Parallel()
			checkQuickstart(t, evals)
		})
	}
}

func checkQuickstart(t *testing.T, evals string) {
	root := repoRoot(t)
	res := agentv(t, root, nil, "eval", evals, "--max-failures", "1")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	got := res.byID()
	want := map[string]results.Verdict{"capital": "pass", "order-total": "pass", "structured-answer": "pass", "haiku": "fail"}
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d:\n%s", len(got), len(want), res.stdout)
	}
	for id, v := range want {
		if r := got[id]; r == nil || r.Verdict != v {
			t.Errorf("%s: verdict %v, want %s (record %+v)", id, r.Verdict, v, r)
		}
	}
	// The custom judge prompt reached the judge with its variables filled in.
	ot := got["order-total"]
	var acc *results.EvaluatorResult
	for i := range ot.EvaluatorResults {
		if ot.EvaluatorResults[i].Name == "accuracy" {
			acc = &ot.EvaluatorResults[i]
		}
	}
	if acc == nil {
		t.Fatalf("order-total has no 'accuracy' evaluator: %+v", ot.EvaluatorResults)
	}
	var req struct {
		UserPrompt, SystemPrompt, Target string
	}
	if err := json.Unmarshal(acc.EvaluatorProviderRequest, &struct {
		UserPrompt   *string `json:"user_prompt"`
		SystemPrompt *string `json:"system_prompt"`
		Target       *string `json:"target"`
	}{&req.UserPrompt, &req.SystemPrompt, &req.Target}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(req.UserPrompt, "The order total is 13.00 EUR.") || strings.Contains(req.UserPrompt, "{{") || req.Target != "judge" {
		t.Errorf("judge request = %+v", req)
	}
	if !strings.Contains(req.SystemPrompt, "JSON") {
		t.Errorf("system prompt lacks the JSON contract: %q", req.SystemPrompt)
	}
	// The guideline went to the agent as a file, not as question text.
	if !strings.Contains(string(ot.AgentProviderRequest), "style.instructions.md") {
		t.Errorf("agent request does not list the guideline file: %s", ot.AgentProviderRequest)
	}
	for _, f := range []string{"junit.xml", "summary.md", "comment.md"} {
		if _, err := os.Stat(filepath.Join(res.outDir, f)); err != nil {
			t.Errorf("missing report %s: %v", f, err)
		}
	}
	// Without allowing the failure, the gate fails with exit code 1.
	if res := agentv(t, root, nil, "eval", evals); res.code != 1 {
		t.Errorf("without --max-failures: exit %d, want 1\n%s", res.code, res.stdout)
	}
}

// writeFiles creates files under dir from a name → content map.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const mockTargets = `targets:
  - name: default
    provider: mock
    response: '{"answer":"42"}'
    judge_target: judge
    workers: 4
  - name: judge
    provider: mock
    response: '{"score": 1, "hits": ["ok"], "misses": [], "reasoning": "fine"}'
`

func TestBadInputs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	tests := []struct {
		name     string
		files    map[string]string
		args     []string
		env      []string
		wantCode int
		wantOut  []string // substrings of stdout+stderr
		wantRecs map[string]results.Verdict
	}{
		{
			name: "malformed yaml",
			files: map[string]string{"targets.yaml": mockTargets,
				"bad.yaml": "evalcases:\n  - id: a\n    input: [unclosed\n", "good.yaml": "evalcases:\n  - id: ok\n    input: hi\n"},
			args: []string{"bad.yaml", "good.yaml"}, wantCode: 2,
			wantOut: []string{"bad.yaml:4:1", "line 3"}, wantRecs: map[string]results.Verdict{"ok": "pass"},
		},
		{
			name:  "duplicate ids and a case without id",
			files: map[string]string{"targets.yaml": mockTargets, "s.yaml": "evalcases:\n  - id: a\n    input: hi\n  - id: a\n    input: again\n  - input: no id\n  - id: b\n    input: hi\n"},
			args:  []string{"s.yaml"}, wantCode: 2,
			wantOut:  []string{"s.yaml:4", "s.yaml:6"},
			wantRecs: map[string]results.Verdict{"a": "pass", "b": "pass"},
		},
		{
			name:  "unknown evaluator type",
			files: map[string]string{"targets.yaml": mockTargets, "s.yaml": "evalcases:\n  - id: a\n    input: hi\n    evaluators:\n      - name: x\n        type: telepathy\n  - id: b\n    input: hi\n"},
			args:  []string{"s.yaml"}, wantCode: 2, wantOut: []string{"s.yaml:6", "telepathy"},
			wantRecs: map[string]results.Verdict{"b": "pass"},
		},
		{
			name: "unknown cli placeholder",
			files: map[string]string{"targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: echo {PROMPT} {MODEL}\n",
				"s.yaml": "evalcases:\n  - id: a\n    input: hi\n"},
			args: []string{"s.yaml"}, wantCode: 2, wantOut: []string{"targets.yaml:4", "{MODEL}"},
		},
		{
			name: "unset variable",
			files: map[string]string{"targets.yaml": "targets:\n  - name: default\n    provider: openai\n    model: gpt-4o\n    api_key: ${{ AGENTV_E2E_UNSET_KEY }}\n",
				"s.yaml": "evalcases:\n  - id: a\n    input: hi\n"},
			args: []string{"s.yaml"}, wantCode: 2, wantOut: []string{"AGENTV_E2E_UNSET_KEY", "default"},
		},
		{
			name:  "missing referenced file is a warning",
			files: map[string]string{"targets.yaml": mockTargets, "s.yaml": "evalcases:\n  - id: a\n    input_messages:\n      - role: user\n        content:\n          - {type: text, value: hi}\n          - {type: file, value: nowhere.md}\n"},
			args:  []string{"s.yaml"}, wantCode: 0, wantOut: []string{"nowhere.md"},
			wantRecs: map[string]results.Verdict{"a": "pass"},
		},
		{
			name: "failed healthcheck",
			files: map[string]string{"targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: echo hi\n    healthcheck:\n      type: command\n      command_template: exit 7\n",
				"s.yaml": "evalcases:\n  - id: a\n    input: hi\n  - id: b\n    input: hi\n"},
			args: []string{"s.yaml"}, wantCode: 2, wantOut: []string{`healthcheck of target "default" failed`},
			// No case ran: an invalid run that ran nothing writes no results file.
			wantRecs: map[string]results.Verdict{},
		},
		{
			name:  "path matching nothing",
			files: map[string]string{"targets.yaml": mockTargets},
			args:  []string{"evals/*.yaml"}, wantCode: 2, wantOut: []string{"evals/*.yaml"},
		},
		{
			name: "judges that misbehave",
			files: map[string]string{"targets.yaml": mockTargets,
				"garbage.py": "print('not json')\n", "exit1.py": "import sys\nsys.stderr.write('judge exploded')\nsys.exit(1)\n",
				"hang.py": "import time\ntime.sleep(60)\n", "huge.py": "import sys\nsys.stdout.write('x' * 50_000_000)\n",
				"good.py": "import json\nprint(json.dumps({'score': 1}))\n",
				"s.yaml": `evalcases:
  - {id: garbage, input: hi, evaluators: [{name: j, type: code_judge, script: [python3, garbage.py]}]}
  - {id: exit1, input: hi, evaluators: [{name: j, type: code_judge, script: [python3, exit1.py]}]}
  - {id: hang, input: hi, evaluators: [{name: j, type: code_judge, script: [python3, hang.py]}]}
  - {id: huge, input: hi, evaluators: [{name: j, type: code_judge, script: [python3, huge.py]}]}
  - {id: good, input: hi, evaluators: [{name: j, type: code_judge, script: [python3, good.py]}]}
`},
			args: []string{"s.yaml", "--timeout", "6"}, wantCode: 3, wantOut: []string{"judge exploded"},
			wantRecs: map[string]results.Verdict{"garbage": "error", "exit1": "error", "hang": "error", "huge": "error", "good": "pass"},
		},
		{
			name: "judge replies without a verdict",
			files: map[string]string{"targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: hi\n    judge_target: judge\n  - name: judge\n    provider: mock\n    response: I refuse to answer in JSON\n",
				"s.yaml": "evalcases:\n  - id: a\n    input: hi\n"},
			args: []string{"s.yaml"}, wantCode: 1, wantRecs: map[string]results.Verdict{"a": "fail"},
		},
		{
			name: "template missing required fields warns",
			files: map[string]string{"targets.yaml": mockTargets, "t.md": "Rate this:\n{{ question }}\n",
				"s.yaml": "evalcases:\n  - id: a\n    input: hi\n    evaluators:\n      - {name: j, type: llm_judge, prompt: t.md}\n"},
			args: []string{"s.yaml"}, wantCode: 0, wantOut: []string{"t.md", "missing required fields"},
			wantRecs: map[string]results.Verdict{"a": "pass"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, tt.files)
			res := agentv(t, dir, tt.env, append([]string{"eval"}, tt.args...)...)
			all := res.stdout + res.stderr
			if res.code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", res.code, tt.wantCode, all)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			if strings.Contains(all, "panic") || strings.Contains(all, "goroutine ") {
				t.Errorf("output shows a panic:\n%s", all)
			}
			got := res.byID()
			for id, v := range tt.wantRecs {
				if r := got[id]; r == nil || r.Verdict != v {
					t.Errorf("%s: got %+v, want verdict %s", id, r, v)
				}
			}
			if tt.wantRecs != nil && len(got) != len(tt.wantRecs) {
				t.Errorf("got %d records, want %d", len(got), len(tt.wantRecs))
			}
		})
	}
}

// A cancelled run stops starting cases, lets running ones finish, and still writes every report.
//
//nolint:paralleltest // signals a run at a chosen moment; a busy machine shifts that moment.
func TestInterruptWritesReports(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Run("SIGINT", func(t *testing.T) { interruptWritesReports(t, syscall.SIGINT, nil) })
	// As a container's init, agentv forwards the signal `docker stop` sends to the run.
	t.Run("SIGTERM to init", func(t *testing.T) { interruptWritesReports(t, syscall.SIGTERM, []string{"AGENTV_INIT=1"}) })
}

func interruptWritesReports(t *testing.T, sig os.Signal, env []string) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: mock\n    delay_ms: 300\n    judge_target: judge\n    workers: 2\n  - name: judge\n    provider: mock\n    response: '{\"score\":1}'\n",
		"s.yaml":       "evalcases:\n" + genCases(40),
	})
	out := t.TempDir()
	cmd := exec.Command(agentvBin, "eval", "s.yaml", "--out", filepath.Join(out, "results.jsonl"))
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once some cases have finished (polled, so a slow machine does not make the run
	// end before any case did). Until the run ends its results go to a temporary file.
	partialFile(t, out, 2)
	_ = cmd.Process.Signal(sig)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit = %v, want 2 (invalid: cancelled)\n%s", err, buf.String())
	}
	recs, rerr := readRecords(filepath.Join(out, "results.jsonl"))
	if rerr != nil || len(recs) == 0 || len(recs) >= 40 {
		t.Errorf("after interrupt: %d records (err %v), want some but not all", len(recs), rerr)
	}
	for _, f := range []string{"junit.xml", "summary.md", "comment.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report %s not written after interrupt: %v", f, err)
		}
	}
}

func genCases(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  - id: case-%03d\n    input: hi\n", i)
	}
	return b.String()
}

// readRecords reads the case records of a results file; on an error it returns the records
// before it.
func readRecords(path string) ([]*results.Record, error) {
	var recs []*results.Record
	err := results.ScanFile(path, func(r *results.Record) error { recs = append(recs, r); return nil })
	return recs, err
}
