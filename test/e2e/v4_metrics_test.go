package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestV4Workspace runs a suite with a workspace: its template is copied into a new directory,
// the before_all hook (a real python3 process) gets {"workspace_path": ...} on stdin and the
// path in {{workspace_path}}, and the cli target runs there and sees both the template's file
// and the hook's. AgentV 4.42.4 scores the test 1 on the same files. The workspace is gone
// after the run. A suite whose hook fails runs none of its tests: each is an error naming
// the hook's failure. (Not a scenario: the target's script is named by the repository's
// absolute path, and the test checks the workspace is removed.)
func TestV4Workspace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "python3")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		// The target runs in the workspace, so its script is named by absolute path.
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command: python3 " +
			filepath.ToSlash(filepath.Join(dir, "agent.py")) + " {OUTPUT_FILE}\n",
		"tpl/seed.txt":  "from template\n",
		"tpl/.git/HEAD": "ref: refs/heads/main\n",
		"hook.py": `import json, os, sys
ctx = json.load(sys.stdin)
assert sys.argv[1] == ctx["workspace_path"], sys.argv
open(os.path.join(ctx["workspace_path"], "hooked.txt"), "w").write("hook ran for " + ctx["test_id"])
`,
		"fail.py": "import sys\nsys.stderr.write('database unreachable\\n')\nsys.exit(4)\n",
		// A code grader is told where the workspace is, and finds the hook's file there.
		"ws_grader.py": `import json, os, sys
p = json.load(sys.stdin)
ws = p.get("workspace_path") or ""
ok = bool(ws) and os.path.isfile(os.path.join(ws, "hooked.txt"))
print(json.dumps({"score": 1 if ok else 0, "assertions": [{"text": "workspace_path " + ws, "passed": ok}]}))
`,
		"agent.py": `import os, sys
parts = [os.getcwd()]
for f in ("seed.txt", "hooked.txt", ".git"):
    parts.append(open(f).read().strip() if os.path.isfile(f) else "no " + f)
open(sys.argv[1], "w").write(" | ".join(parts))
`,
		"evals/ws.eval.yaml": `name: ws
workspace:
  template: ../tpl
  hooks:
    before_all:
      command: [python3, ../hook.py, "{{workspace_path}}"]
tests:
  - id: sees-workspace
    input: hi
    assertions:
      - {type: contains, value: from template}
      - {type: contains, value: hook ran for __before_all__}
      - {type: contains, value: no .git}
      - {type: code-grader, command: [python3, ../ws_grader.py]}
`,
		"evals/broken.eval.yaml": `name: broken
workspace:
  hooks:
    before_all: {command: python3 ../fail.py}
tests:
  - {id: never-runs, input: hi, criteria: anything}
`,
	})
	res := agentv(t, dir, nil, "eval", "evals/ws.eval.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	r := res.byID()["sees-workspace"]
	if r == nil || r.Score != 1 {
		t.Fatalf("record %+v, want score 1", r)
	}
	ws, _, _ := strings.Cut(r.CandidateAnswer, " | ")
	if ws == dir || !strings.Contains(ws, "agentv-workspace-") {
		t.Errorf("the target ran in %q, want a workspace directory", ws)
	}
	if _, err := os.Stat(ws); !os.IsNotExist(err) {
		t.Errorf("workspace %s still there after the run (%v)", ws, err)
	}

	// A case that cannot run makes the run invalid (exit 2), the reason shown.
	res = agentv(t, dir, nil, "eval", "evals/broken.eval.yaml")
	if want := `never-runs: evals/broken.eval.yaml: workspace before_all hook failed: "python3 ../fail.py" exited with code 4: database unreachable`; res.code != 2 || !strings.Contains(res.stdout, want) {
		t.Errorf("exit %d, want 2 and %q in:\n%s", res.code, want, res.stdout)
	}
}
