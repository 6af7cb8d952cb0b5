package e2e_test

import (
	"os/exec"
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
// prompt templates use, and that without one the case's error says what to install.
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
			if len(res.records) != 1 {
				t.Fatalf("exit %d, %d records\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
			}
			rec := res.records[0]
			if tt.wantErr == "" {
				if res.code != 0 || rec.Score != 1 {
					t.Errorf("exit %d score %v error %q\n%s", res.code, rec.Score, rec.Error+evaluatorErrors(rec.EvaluatorResults), res.stderr)
				}
				return
			}
			if got := rec.Error + evaluatorErrors(rec.EvaluatorResults); !strings.Contains(got, tt.wantErr) || !strings.Contains(got, "install bun") {
				t.Errorf("error %q, want %q and what to install", got, tt.wantErr)
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
