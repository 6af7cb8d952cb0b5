package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// transcriptProject has a cli target and a mock one, and two tests whose code grader saves the
// payload's messages and trace.messages to $DUMP/<test>.json: one question with an input file
// (the transcript starts with the formatted question, file reference included) and a
// conversation in its input (the chat messages the target was sent).
var transcriptProject = map[string]string{
	".git/HEAD": "ref: refs/heads/main\n",
	".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: python3 agent.py {PROMPT_FILE} {OUTPUT_FILE}
  - name: lm
    provider: mock
    response: High
`,
	"agent.py":    "import sys\nopen(sys.argv[2], 'w').write('High')\n",
	"files/a.txt": "hello\n",
	"dump.py": `import json, os, sys
p = json.load(sys.stdin)
with open(os.path.join(os.environ["DUMP"], p["metadata"]["tag"] + ".json"), "w") as f:
    json.dump({"messages": p["messages"], "trace_messages": p["trace"]["messages"]}, f, indent=1, sort_keys=True)
print(json.dumps({"score": 1}))
`,
	"t.eval.yaml": `name: transcript
tests:
  - id: single
    metadata: {tag: single}
    input_files: [files/a.txt]
    input: "  What is the risk level?  "
    assertions:
      - type: code-grader
        command: [python3, dump.py]
  - id: multi
    metadata: {tag: multi}
    input:
      - {role: system, content: Be terse.}
      - {role: user, content: Hi}
      - {role: assistant, content: Hello}
      - {role: user, content: What is the risk level?}
    assertions:
      - type: code-grader
        command: [python3, dump.py]
`,
}

// TestCodeGraderTranscriptLikeAgentV442: a code grader's messages (and trace.messages) begin
// with the prompt the target was sent — the formatted question, or the chat messages — as
// AgentV 4.42.4 records it (orchestrator.ts, buildResultInput), not with the test's input
// messages. With AGENTV_TEST_AGENTV442 set, 4.42.4 runs the same project and the payloads are
// compared, for the cli target and for the mock one.
func TestCodeGraderTranscriptLikeAgentV442(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	dir := t.TempDir()
	writeFiles(t, dir, transcriptProject)
	dump := func(t *testing.T, run func(env []string), name string) map[string]string {
		t.Helper()
		d := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		run([]string{"DUMP=" + d})
		out := map[string]string{}
		for _, tag := range []string{"single", "multi"} {
			b, err := os.ReadFile(filepath.Join(d, tag+".json"))
			if err != nil {
				t.Fatalf("%s: the grader of %s saved nothing: %v", name, tag, err)
			}
			out[tag] = string(b)
		}
		return out
	}
	for _, target := range []string{"default", "lm"} {
		ours := dump(t, func(env []string) {
			if res := agentv(t, dir, env, "eval", "t.eval.yaml", "--target", target); res.code != 0 {
				t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
		}, "ours-"+target)
		file := filepath.Join(dir, "files", "a.txt")
		wants := map[string]string{"multi": `"content": "Be terse."`}
		if target == "default" { // an agent target is referred to the file; a model gets its text
			wants["single"] = `"content": "<file: path=\"` + file + `\">\n\nWhat is the risk level?"`
		}
		for tag, want := range wants {
			if !strings.Contains(ours[tag], want) {
				t.Errorf("%s, %s: transcript lacks %s:\n%s", target, tag, want, ours[tag])
			}
		}
		cli := os.Getenv("AGENTV_TEST_AGENTV442")
		if cli == "" {
			continue
		}
		theirs := dump(t, func(env []string) {
			cmd := exec.Command("node", cli, "eval", "t.eval.yaml", "--target", target, "-o", t.TempDir())
			cmd.Dir = dir
			cmd.Env = append(append(cleanEnv(), env...), "AGENTV_NO_UPDATE_CHECK=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("4.42.4: %v\n%s", err, out)
			}
		}, "theirs-"+target)
		if diff := cmp.Diff(theirs, ours); diff != "" {
			t.Errorf("%s: transcripts differ from 4.42.4's (-4.42.4 +agentv):\n%s", target, diff)
		}
	}
}
