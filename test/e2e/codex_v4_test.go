package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentRelativeCwdByDialect runs a codex target whose cwd is relative, for an eval file
// in a subfolder: in a 4.x file it is taken from the working directory, as AgentV 4.42.4
// resolves it (path.resolve in codex.ts, resolveCwd), in a 2.5 file from the eval file's
// folder, as before.
func TestAgentRelativeCwdByDialect(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		// The stand-in answers with the folder it runs in.
		"fake-codex": `#!/bin/sh
cat > /dev/null
printf '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"ran in %s"}}\n' "$(pwd)"
echo '{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}'
`,
		".agentv/targets.yaml": fmt.Sprintf("targets:\n  - name: default\n    provider: codex\n    executable: %q\n    cwd: work\n",
			filepath.Join(dir, "fake-codex")),
		"work/.keep":       "",
		"evals/work/.keep": "",
		"evals/v4.eval.yaml": `name: v4
tests:
  - id: v4-case
    input: Where are you?
    assertions:
      - type: contains
        value: ran in
`,
		"evals/v25.yaml": `description: 2.5
evalcases:
  - id: v25-case
    input: Where are you?
    expected_outcome: says where
    evaluators:
      - name: where
        type: code_judge
        script: ["sh", "-c", "echo '{\"score\": 1}'"]
`,
	})
	if err := os.Chmod(filepath.Join(dir, "fake-codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := agentv(t, dir, nil, "eval", "evals/v4.eval.yaml", "evals/v25.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	recs := res.byID()
	for id, want := range map[string]string{"v4-case": filepath.Join(dir, "work"), "v25-case": filepath.Join(dir, "evals", "work")} {
		r := recs[id]
		if r == nil {
			t.Fatalf("no record for %s\n%s", id, res.stderr)
		}
		if got := strings.TrimSpace(r.CandidateAnswer); got != "ran in "+want {
			t.Errorf("%s: answer %q, want it run in %s", id, got, want)
		}
	}
}
