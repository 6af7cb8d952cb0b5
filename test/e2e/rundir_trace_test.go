package e2e_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// traceWorkspace is a 4.x suite whose cli target answers with a tool call; the agent puts
// $AGENTV_E2E_TRACE_KEY (when set) in the call's input and output and in its answer. The key
// is a secret of the targets file: a target that does not run takes it as its api_key.
func traceWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: python3 ./agent.py {OUTPUT_FILE}
  - name: never-runs
    provider: openai
    model: gpt-4o
    api_key: ${{ AGENTV_E2E_TRACE_KEY }}
`,
		"agent.py": `import json, os, sys
key = os.environ.get("AGENTV_E2E_TRACE_KEY", "none")
out = {"text": "final answer", "output": [
  {"role": "assistant", "content": "let me look " + key, "tool_calls": [{"tool": "read", "input": {"path": "a.txt", "auth": key}, "output": "hello " + key, "id": "c1", "duration_ms": 12}]},
  {"role": "tool", "content": "hello"},
  {"role": "assistant", "content": "final answer"}],
  "token_usage": {"input": 10, "output": 5}, "cost_usd": 0.01, "duration_ms": 123}
open(sys.argv[1], "w").write(json.dumps(out))
`,
		"tools.eval.yaml": "name: tools\ntests:\n  - id: t1\n    input: what is in a.txt?\n    assertions:\n      - type: contains\n        value: final\n",
	})
	return ws
}

// TestRunDirTrace: `-o DIR` writes each test's outputs/trace.json and outputs/transcript.jsonl
// as 4.42.4 does, the index row naming the transcript; the tool call the agent made is in
// both, and the secret it echoed is in neither (nor in any other file of the run directory).
func TestRunDirTrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	const key = "sk-e2e-trace/Key+0123456789abcdefXYZ"
	ws := traceWorkspace(t)
	cmd := exec.Command(agentvBin, "eval", "tools.eval.yaml", "-o", "run")
	cmd.Dir = ws
	cmd.Env = append(cleanEnv(), "AGENTV_E2E_TRACE_KEY="+key)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	run := filepath.Join(ws, "run")
	var env struct {
		SchemaVersion string `json:"schema_version"`
		Trace         struct {
			Spans []struct {
				Name       string         `json:"name"`
				Attributes map[string]any `json:"attributes"`
			} `json:"spans"`
		} `json:"trace"`
		Artifacts map[string]string `json:"artifacts"`
	}
	b, err := os.ReadFile(filepath.Join(run, "tools", "t1", "outputs", "trace.json"))
	if err != nil || json.Unmarshal(b, &env) != nil {
		t.Fatalf("trace.json (%v):\n%s", err, b)
	}
	var names []string
	for _, s := range env.Trace.Spans {
		names = append(names, s.Name)
	}
	if env.SchemaVersion != "agentv.trace.v1" || strings.Join(names, ",") != "invoke_agent default,chat default,execute_tool read,chat default" ||
		env.Artifacts["transcript_path"] != "outputs/transcript.jsonl" {
		t.Errorf("trace.json: spans %v\n%s", names, b)
	}
	tr, err := os.ReadFile(filepath.Join(run, "tools", "t1", "outputs", "transcript.jsonl"))
	if err != nil || strings.Count(string(tr), "\n") != 4 || !strings.Contains(string(tr), `"tool_calls":[{"tool":"read"`) {
		t.Errorf("transcript.jsonl (%v):\n%s", err, tr)
	}
	idx, _ := os.ReadFile(filepath.Join(run, "index.jsonl"))
	if !strings.Contains(string(idx), `"transcript_path":"tools/t1/outputs/transcript.jsonl"`) {
		t.Errorf("index.jsonl:\n%s", idx)
	}
	err = filepath.WalkDir(run, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		for _, form := range secretForms(key) {
			if strings.Contains(string(b), form) {
				t.Errorf("%s holds %q", p, form)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// AgentV 4.42.4's readers of a run directory say the same of its run and of ours when they
// read a test's trace: the tools it called and its LLM calls (`inspect show`), and a tool
// count graded again from the trace (`inspect score`).
func TestAgentV442RunDirTraceReaders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
	}
	requireTools(t, "node", "python3")
	ws := traceWorkspace(t)
	node := func(args ...string) string {
		cmd := exec.Command("node", append([]string{cli}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		var failed *exec.ExitError
		if err != nil && !errors.As(err, &failed) {
			t.Fatalf("4.42.4 %v: %v\n%s", args, err, out)
		}
		return fmt.Sprintf("%s(exit %d)", out, cmd.ProcessState.ExitCode()) // score exits 1 when a test fails
	}
	if out := node("eval", "tools.eval.yaml", "-o", "run"); !strings.HasSuffix(out, "(exit 0)") {
		t.Fatalf("4.42.4's run:\n%s", out)
	}
	if res := agentvRaw(t, ws, filepath.Join(ws, "ours", "run"), "eval", "tools.eval.yaml", "-o", "ours/run"); res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// Our duration_ms is the case's wall time, 4.42.4's the agent's own figure; inspect shows it
	// in ms, seconds ("2.3s") or minutes ("1m5s") by its size, so a loaded machine changes the unit.
	noise := []*regexp.Regexp{regexp.MustCompile(`Duration: (\d+m)?[\d.]+m?s`), regexp.MustCompile(`(Results|Statistics): \S+`)}
	for _, cmd := range [][]string{
		{"inspect", "show"},
		{"inspect", "score", "-a", "execution-metrics:max_tool_calls=0"},
		{"inspect", "score", "-a", "contains:final"},
	} {
		theirs, ours := node(append(cmd, "run")...), node(append(cmd, "ours/run")...)
		for _, re := range noise {
			theirs, ours = re.ReplaceAllString(theirs, "~"), re.ReplaceAllString(ours, "~")
		}
		if theirs != ours {
			t.Errorf("4.42.4's %v on its run and on ours differ:\n--- its run\n%s\n--- ours\n%s", cmd, theirs, ours)
		}
		if cmd[1] == "show" && !strings.Contains(ours, "Tools: read") {
			t.Errorf("inspect show did not read our trace:\n%s", ours)
		}
	}
}

// TestRunDirConversationTranscript: a conversation test's transcript is the whole
// conversation, as 4.42.4 records it (orchestrator.ts, the conversation's history as the
// output): the opening input, then each turn's input and answer.
func TestRunDirConversationTranscript(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh")
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command: sh ./agent.sh {PROMPT} {OUTPUT_FILE}\n",
		"agent.sh":             "#!/bin/sh\necho \"answer: $1\" > \"$2\"\n",
		"conv.eval.yaml": `name: conv
tests:
  - id: c1
    mode: conversation
    input: start
    turns:
      - input: say hello
        assertions: [{type: contains, value: hello}]
      - input: say bye
        assertions: [{type: contains, value: bye}]
`,
	})
	if res := agentvRaw(t, ws, filepath.Join(ws, "run"), "eval", "conv.eval.yaml", "-o", "run"); res.code != 0 || len(res.records) != 1 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	b, err := os.ReadFile(filepath.Join(ws, "run", "conv", "c1", "outputs", "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row struct{ Role, Content string }
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, row.Role+": "+strings.TrimSpace(row.Content))
	}
	want := []string{"user: start", "user: say hello", "assistant: answer: say hello", "user: say bye", "assistant: answer: say bye"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("transcript:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
