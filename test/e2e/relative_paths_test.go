package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLITargetRelativeCwd: a cli target in .agentv/targets.yaml at the repository root with
// `cwd: ..` runs its command and its healthcheck in the parent of the eval file's folder, as
// AgentV 2.5 and 4.42.4 do (both resolve against the eval file's folder, not the targets
// file's); a healthcheck without cwd runs in the eval file's folder itself.
func TestCLITargetRelativeCwd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const targetsYAML = `targets:
  - name: default
    provider: cli
    command_template: sh -c 'pwd > {OUTPUT_FILE}'
    cwd: ..
    healthcheck:
      type: command
      command_template: test -f ./evals-marker
      cwd: ..
  - name: plain-health
    provider: cli
    command_template: sh -c 'pwd > {OUTPUT_FILE}'
    cwd: ..
    healthcheck:
      type: command
      command_template: test -f ./sub-marker
`
	const v25 = `evalcases:
  - id: where
    input_messages: [{role: user, content: where are you?}]
    expected_outcome: runs in the evals folder
    execution:
      evaluators:
        - name: cwd
          type: code_judge
          script: ["python3", "-c", "import json,sys; p=json.load(sys.stdin); ok=p['candidate_answer'].strip().endswith('/evals'); print(json.dumps({'score': 1 if ok else 0, 'reasoning': p['candidate_answer']}))"]
`
	const v4 = `tests:
  - id: where
    input: where are you?
    assertions:
      - type: ends-with
        value: /evals
`
	for _, tc := range []struct{ name, file, body, target string }{
		{"2.5", "cases.yaml", v25, "default"},
		{"4.x", "cases.eval.yaml", v4, "default"},
		{"4.x healthcheck without cwd", "cases.eval.yaml", v4, "plain-health"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			requireTools(t, "python3", "sh")
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{
				".agentv/targets.yaml":              targetsYAML,
				"evals/evals-marker":                "",
				"evals/sub/sub-marker":              "",
				filepath.Join("evals/sub", tc.file): tc.body,
			})
			res := agentv(t, dir, nil, "eval", filepath.Join("evals", "sub", tc.file), "--target", tc.target)
			if res.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			rec := res.byID()["where"]
			if rec == nil {
				t.Fatalf("no record for case 'where':\n%s", res.stdout)
			}
			want, _ := filepath.EvalSymlinks(filepath.Join(dir, "evals"))
			if got := strings.TrimSpace(rec.CandidateAnswer); got != want && got != filepath.Join(dir, "evals") {
				t.Errorf("command ran in %s, want %s", got, want)
			}
		})
	}
}
