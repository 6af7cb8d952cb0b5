package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// judgeTS is a TypeScript code judge: types in it, no executable bit, no shebang.
const judgeTS = `let data: string = "";
process.stdin.on("data", (c: Buffer) => (data += c));
process.stdin.on("end", () => console.log(JSON.stringify({ score: JSON.parse(data) ? 1 : 0, hits: ["ts ran"] })));
`

// judgeJS reads the payload and scores 1.
const judgeJS = `let data = "";
process.stdin.on("data", (c) => (data += c));
process.stdin.on("end", () => console.log(JSON.stringify({ score: JSON.parse(data) ? 1 : 0, hits: ["js ran"] })));
`

// TestCodeJudgeScriptPath checks that `script: judges/x.ts` (or .js) runs with the runtime
// prompt templates use, and that without one the run stops at load saying what to install.
func TestCodeJudgeScriptPath(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	suite := func(script string) string {
		return "evalcases:\n  - id: a\n    input: hi\n    evaluators:\n      - name: tone\n        type: code_judge\n        script: " + script + "\n"
	}
	tsRuntime := ""
	for _, name := range []string{"bun", "tsx"} {
		if _, err := exec.LookPath(name); err == nil {
			tsRuntime = name
			break
		}
	}
	tests := []struct {
		name    string
		script  string
		need    string // skip without this on PATH
		env     []string
		wantErr string // "" means the case passes
	}{
		{name: "TypeScript path", script: "judges/tone.ts", need: tsRuntime},
		{name: "JavaScript path in a list", script: "[judges/tone.js]", need: "node"},
		{name: "no runtime", script: "judges/tone.ts", env: []string{"PATH=/nonexistent"},
			wantErr: "cannot run TypeScript script"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.need == "" && tt.env == nil {
				t.Skip("no TypeScript runtime (bun or tsx) on PATH")
			}
			if tt.need != "" {
				if _, err := exec.LookPath(tt.need); err != nil {
					t.Skipf("%s not on PATH", tt.need)
				}
			}
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"targets.yaml": mockTargets, "s.yaml": suite(tt.script),
				"judges/tone.ts": judgeTS,
				"judges/tone.js": judgeJS})
			res := agentv(t, dir, tt.env, "eval", "s.yaml")
			if tt.wantErr != "" {
				// Found when the file loads: the case does not run and the run is invalid.
				if res.code != 2 || len(res.records) != 0 || !strings.Contains(res.stderr, "s.yaml:7:17: code_judge \"tone\" script: cannot run here: ") ||
					!strings.Contains(res.stderr, tt.wantErr) || !strings.Contains(res.stderr, "install bun") {
					t.Errorf("exit %d, %d records, want 2 and none, and the load error %q saying what to install:\n%s", res.code, len(res.records), tt.wantErr, res.stderr)
				}
				return
			}
			if len(res.records) != 1 {
				t.Fatalf("exit %d, %d records\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
			}
			if rec := res.records[0]; res.code != 0 || rec.Score != 1 {
				t.Errorf("exit %d score %v error %q\n%s", res.code, rec.Score, rec.Error+evaluatorErrors(rec.EvaluatorResults), res.stderr)
			}
		})
	}
}

// evaluatorErrors joins the errors of evaluators, depth first.
func evaluatorErrors(ers []results.EvaluatorResult) string {
	var b strings.Builder
	for _, e := range ers {
		b.WriteString(e.Error)
		b.WriteString(evaluatorErrors(e.EvaluatorResults))
	}
	return b.String()
}

// TestMissingGraderScriptStopsAtLoad checks that eval finds a code grader whose script is not
// there when it loads the file, as validate does: the same error at the same file:line:col
// naming the field (4.x `command`, 2.5 `script`), exit 2, and every other case still runs.
func TestMissingGraderScriptStopsAtLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: Look at this\n",
		"evals/new.eval.yaml": `name: new
tests:
  - id: fine
    input: hi
    assertions:
      - type: contains
        value: Look
  - id: missing-grader
    input: hi
    assertions:
      - type: code-grader
        command: [python3, ./graders/a-long-folder-name/check_the_poem_for_tests.py]
`,
		"evals/old.yaml": `evalcases:
  - id: old-missing
    input: hi
    evaluators:
      - name: judge
        type: code_judge
        script: [node, judges/nothere.js]
`,
		"evals/other.eval.yaml": "name: other\ntests:\n  - id: other-fine\n    input: hi\n    assertions: [{type: contains, value: Look}]\n",
	})
	want := []string{
		`evals/new.eval.yaml:12:18: code-grader command: cannot run here: script ./graders/a-long-folder-name/check_the_poem_for_tests.py: not found (case "missing-grader" not loaded)`,
		`evals/old.yaml:7:17: code_judge "judge" script: cannot run here: script judges/nothere.js: not found (case "old-missing" not loaded)`,
	}
	files := []string{"evals/new.eval.yaml", "evals/old.yaml", "evals/other.eval.yaml"}
	val := agentv(t, dir, nil, append([]string{"validate"}, files...)...)
	run := agentv(t, dir, nil, append([]string{"eval"}, files...)...)
	for name, res := range map[string]struct {
		code int
		out  string
	}{"validate": {val.code, val.stdout}, "eval": {run.code, run.stderr}} {
		if res.code != 2 {
			t.Errorf("%s: exit %d, want 2 (invalid)", name, res.code)
		}
		for _, w := range want {
			if !strings.Contains(res.out, w) {
				t.Errorf("%s: missing %q in:\n%s", name, w, res.out)
			}
		}
	}
	got := run.byID()
	if len(run.records) != 2 || got["fine"] == nil || got["other-fine"] == nil {
		t.Errorf("eval ran %d cases, want the two that can run:\n%s", len(run.records), run.stderr)
	}
	summary, _ := os.ReadFile(filepath.Join(run.outDir, "summary.md"))
	if !strings.Contains(string(summary), "**Outcome: invalid**") || !strings.Contains(string(summary), "check_the_poem_for_tests.py: not found") {
		t.Errorf("the summary does not say why the run is invalid:\n%s", summary)
	}
}
