package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// claudeV4Project is a project whose 4.x eval file sits in evals/ and whose claude target (a
// stand-in recording its argv, stdin and working directory in rec/) has a system_prompt, a
// relative cwd and a grader target (4.42.4 requires one for agent targets). The stand-in's
// answer repeats the API key it was given.
func claudeV4Project(t *testing.T, dir string) {
	t.Helper()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"fake-claude": `#!/bin/sh
rec="$(dirname "$0")/rec"
mkdir -p "$rec"
printf '%s\n' "$@" > "$rec/argv"
cat > "$rec/stdin"
pwd > "$rec/cwd"
echo '{"type":"system","subtype":"init","model":"m"}'
echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}'
echo '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"hello"}]}}'
echo '{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"The answer is 42. key='"$ANTHROPIC_API_KEY"'"}]}}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"The answer is 42.","total_cost_usd":0.001,"duration_ms":12,"usage":{"input_tokens":10,"output_tokens":5}}'
`,
		".agentv/targets.yaml": fmt.Sprintf(`targets:
  - name: default
    provider: claude
    executable: %q
    system_prompt: Be terse.
    cwd: work
    grader_target: judge
  - name: judge
    provider: mock
`, filepath.Join(dir, "fake-claude")),
		"work/.keep":        "",
		"evals/files/a.txt": "hello\n",
		"evals/t.eval.yaml": `name: claude-v4
tests:
  - id: one
    input_files: [files/a.txt]
    input: What is six times seven?
    assertions:
      - type: contains
        value: "42"
`,
	})
	if err := os.Chmod(filepath.Join(dir, "fake-claude"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// claudeV4LogName is the name AgentV 4.42.4 gives a claude target's stream log: start time,
// target, case, attempt and a random suffix.
var claudeV4LogName = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_default_one_attempt-1_[0-9a-f]{8}\.log$`)

// claudeV4Seen is what the stand-in recorded and the stream log one run of a program left.
type claudeV4Seen struct {
	argv, stdin, cwd, logName, log string
}

func readClaudeV4Seen(t *testing.T, dir string) claudeV4Seen {
	t.Helper()
	var s claudeV4Seen
	for name, dst := range map[string]*string{"argv": &s.argv, "stdin": &s.stdin, "cwd": &s.cwd} {
		b, err := os.ReadFile(filepath.Join(dir, "rec", name))
		if err != nil {
			t.Fatalf("the claude stand-in did not run: %v", err)
		}
		*dst = string(b)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, ".agentv", "logs", "claude-cli", "*"))
	if len(logs) != 1 {
		t.Fatalf("stream logs %v, want one in .agentv/logs/claude-cli of the working directory", logs)
	}
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	s.logName, s.log = filepath.Base(logs[0]), string(b)
	return s
}

// claudeV4LogShape is a stream log with its times replaced by T.
func claudeV4LogShape(log string) string {
	log = regexp.MustCompile(`(?m)^# started: .*$`).ReplaceAllString(log, "# started: T")
	return regexp.MustCompile(`(?m)^\[\+\d\d:\d\d\]`).ReplaceAllString(log, "[+T]")
}

// TestClaudeTargetAsAgentV442 runs a claude target for a 4.x eval file and checks what AgentV
// 4.42.4 does on the same files (measured with 4.42.4 and, when AGENTV_TEST_AGENTV442 names its
// cli.js, compared side by side): its flags, its prompt document (no instructions before it;
// input files by absolute path), the relative cwd taken from the working directory, not the
// eval file's folder, and a stream log in .agentv/logs/claude-cli. Ours passes system_prompt on
// its own with --system-prompt, as 4.42.4's documentation says (4.42.4 drops it), and masks the
// API key in the log (4.42.4 writes it).
func TestClaudeTargetAsAgentV442(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const key = "sk-ant-e2e-SECRET-7654321"
	dir := t.TempDir()
	claudeV4Project(t, dir)
	res := agentv(t, dir, []string{"ANTHROPIC_API_KEY=" + key}, "eval", "evals/t.eval.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	got := readClaudeV4Seen(t, dir)
	file := filepath.Join(dir, "evals", "files", "a.txt")
	want := claudeV4Seen{
		argv: "-p\n--output-format\nstream-json\n--include-partial-messages\n--verbose\n--dangerously-skip-permissions\n" +
			"--system-prompt\nBe terse.\n",
		stdin: "Read all input files:\n* [a.txt](file://" + file + ").\n" +
			"If any file is missing, fail with ERROR: missing-file <filename> and stop.\n" +
			"Then apply system_instructions on the user query below.\n\n" +
			"[[ ## user_query ## ]]\n\n<file: path=\"" + file + "\">\n\nWhat is six times seven?",
		cwd: filepath.Join(dir, "work") + "\n",
		log: "# Claude CLI stream log\n# target: default\n# eval: one\n# attempt: 1\n# started: T\n" +
			"[+T] [system] init\n[+T] [assistant] tool_use (Read)\n[+T] [user] tool_result (t1)\n" +
			"[+T] [assistant] The answer is 42. key=***\n[+T] [result] $0.0010, 12ms\n",
	}
	if got.argv != want.argv {
		t.Errorf("argv:\n%s\nwant:\n%s", got.argv, want.argv)
	}
	if got.stdin != want.stdin {
		t.Errorf("prompt document:\n%s\nwant:\n%s", got.stdin, want.stdin)
	}
	if got.cwd != want.cwd {
		t.Errorf("cwd %q, want %q (cwd: work from the working directory)", got.cwd, want.cwd)
	}
	if !claudeV4LogName.MatchString(got.logName) {
		t.Errorf("log name %q, want 4.42.4's", got.logName)
	}
	if shape := claudeV4LogShape(got.log); shape != want.log {
		t.Errorf("log:\n%s\nwant:\n%s", shape, want.log)
	}

	// The same files through 4.42.4, when it is installed.
	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		return
	}
	theirs := t.TempDir()
	claudeV4Project(t, theirs)
	cmd := exec.Command("node", cli, "eval", "evals/t.eval.yaml", "-o", filepath.Join(t.TempDir(), "run"))
	cmd.Dir = theirs
	cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "ANTHROPIC_API_KEY="+key)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("4.42.4: %v\n%s", err, out)
	}
	th := readClaudeV4Seen(t, theirs)
	th.stdin = strings.ReplaceAll(th.stdin, theirs, dir)
	th.cwd = strings.ReplaceAll(th.cwd, theirs, dir)
	if want := strings.Replace(got.argv, "--system-prompt\nBe terse.\n", "", 1); th.argv != want {
		t.Errorf("4.42.4's argv:\n%s\nours without --system-prompt:\n%s", th.argv, want)
	}
	if th.stdin != got.stdin || th.cwd != got.cwd {
		t.Errorf("4.42.4 sent\n%s\nin %s; we sent\n%s\nin %s", th.stdin, th.cwd, got.stdin, got.cwd)
	}
	if !claudeV4LogName.MatchString(th.logName) {
		t.Errorf("4.42.4's log name %q", th.logName)
	}
	if shape := strings.ReplaceAll(claudeV4LogShape(th.log), key, "***"); shape != want.log {
		t.Errorf("4.42.4's log (its key masked here):\n%s\nours:\n%s", shape, want.log)
	}
}
