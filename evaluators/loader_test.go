package evaluators

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
)

// TestLoadedSuite runs evaluators on cases loaded by the real loader, so the seam between
// suite.EvaluatorSpec as the loader fills it and the evaluators stays honest.
func TestLoadedSuite(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	needTool(t, "node")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "judge.py", judgePy)
	writeFile(t, dir, "grader.md", "Grade {{ candidate_answer }} against {{ expected_output }}; config is not a variable.")
	writeFile(t, dir, "tmpl.js", `let s = '';
process.stdin.on('data', (c) => { s += c; });
process.stdin.on('end', () => {
  const d = JSON.parse(s);
  console.log("JS Q=" + d.question + " A=" + d.actual_output + " rubric=" + d.config.rubric);
});
`)
	writeFile(t, dir, "echo.py", "import json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({'score': 1, 'reasoning': 'rubric=' + d['config']['rubric']}))\n")
	evalPath := writeFile(t, dir, "eval.yaml", `description: seam test
evalcases:
  - id: fa-code-prompt
    expected_outcome: The assistant answers 42 as JSON.
    input_messages:
      - role: user
        content: What is six times seven?
    expected_messages:
      - role: assistant
        content: '{"answer":"42"}'
    execution:
      evaluators:
        - name: fa
          type: field_accuracy
          weight: 2
          fields:
            - path: answer
              match: exact
        - name: py
          type: code_judge
          script: ["python3", "echo.py"]
          rubric: strict
        - name: graded
          type: llm_judge
          prompt: ./grader.md
  - id: risk
    input: What is the risk level?
    expected_output:
      riskLevel: High
    expected_outcome: Correctly classify as high risk
    rubrics:
      - Says the level is High
    evaluators:
      - type: code
        script: ["python3", "judge.py"]
  - id: seed001
    expected_outcome: x
    input: What is the capital of France?
    evaluator:
      type: llm_judge
      prompt: ./tmpl.js
      rubric: be strict
`)
	s := suite.Load(evalPath, suite.LoadOptions{Cwd: dir})
	for _, d := range s.Diagnostics {
		t.Logf("diagnostic: %v", d)
	}
	if len(s.Cases) != 3 {
		t.Fatalf("loaded %d cases, want 3", len(s.Cases))
	}
	answers := map[string]string{"fa-code-prompt": `{"answer":"42"} High`, "risk": "High", "seed001": "Paris"}
	for _, c := range s.Cases {
		t.Run(c.ID, func(t *testing.T) {
			j := &fakeJudge{name: "judge", reply: `{"score": 1, "hits": ["fine"]}`}
			opts := judgeOpts(j, nil)
			opts.Timeout = 30 * time.Second
			out := Evaluate(t.Context(), riskInput(c, answers[c.ID]), opts)
			for _, r := range out.Results {
				if r.Error != "" {
					t.Errorf("%s (%s): %s", r.Name, r.Type, r.Error)
				}
			}
			var names []string
			for _, r := range out.Results {
				names = append(names, r.Name+"="+r.Type)
			}
			got := strings.Join(names, ",")
			switch c.ID {
			case "fa-code-prompt":
				if got != "fa=field_accuracy,py=code_judge,graded=llm_judge" || out.Results[0].Score != 1 || out.Results[0].Weight != 2 {
					t.Errorf("evaluators %s, results %+v", got, out.Results)
				}
				if len(j.requests()) == 0 {
					t.Fatal("the judge was not called")
				}
				if q := j.requests()[0].Question; !strings.HasPrefix(q, `Grade {"answer":"42"} High against [`) {
					t.Errorf("custom prompt = %q", q)
				}
				if out.Results[1].Reasoning != "rubric=strict" {
					t.Errorf("pass-through config did not reach the judge: %q", out.Results[1].Reasoning)
				}
			case "risk":
				if got != "rubric=llm_judge,code_judge=code_judge" || out.Results[1].Score != 1 {
					t.Errorf("evaluators %s, results %+v", got, out.Results)
				}
				if q := j.requests()[0]; q.SystemPrompt != checklistSystemPrompt || !strings.Contains(q.Question, "- [rubric-1] (REQUIRED): Says the level is High") {
					t.Errorf("inline rubrics did not switch the judge to rubric mode: %+v", q)
				}
				if d := string(out.Results[1].Details); d != `{"riskLevel":"High","refIsNull":false}` {
					t.Errorf("details = %s (user keys must stay verbatim)", d)
				}
			case "seed001":
				if len(j.requests()) == 0 {
					t.Fatal("the judge was not called")
				}
				if q := j.requests()[0].Question; !strings.HasPrefix(q, "JS Q=What is the capital of France? A=Paris") || !strings.Contains(q, "rubric=be strict") {
					t.Errorf("template prompt = %q", q)
				}
			}
		})
	}
}
