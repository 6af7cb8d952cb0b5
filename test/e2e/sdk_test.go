package e2e_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Executable prompt templates and code judges written against the bundled @agentv/eval SDK run
// from a folder outside the repository with nothing installed but a runtime.
func TestSDKTemplatesAndJudges(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "node", "python3")
	hasTS := false
	for _, rt := range []string{"bun", "tsx"} {
		if _, err := exec.LookPath(rt); err == nil {
			hasTS = true
		}
	}
	if !hasTS {
		t.Skip("bun or tsx is needed for TypeScript (.ci/run installs both)")
	}
	dir := t.TempDir() // outside the repository: no node_modules above it
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"targets.yaml": `targets:
  - name: default
    provider: mock
    response: '{"riskLevel": "High", "answer": 42}'
    judge_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.9, "hits": ["judged"], "misses": [], "reasoning": "ok"}'
`,
		"prompts/template.ts": `import { definePromptTemplate } from '@agentv/eval';
export default definePromptTemplate(async (ctx) => {
  const rubric: string = String(ctx.config?.rubric ?? 'none');
  return ` + "`TS template. Q=${ctx.question} A=${ctx.candidateAnswer} rubric=${rubric} expected={{ expected_outcome }}`" + `;
});
`,
		"prompts/template.js": `import { definePromptTemplate } from '@agentv/eval';
export default definePromptTemplate((ctx) => ` + "`JS template. Q=${ctx.question} A=${ctx.actualOutput}`" + `);
`,
		"prompts/argv.py": `import json, sys
p = json.load(sys.stdin)
print("PY template. Q=" + p["question"] + " cfg=" + json.dumps(p["config"], sort_keys=True))
`,
		"prompts/plain.txt": "TXT template. Q={{ question }} A={{ candidate_answer }} E={{ expected_output }}\n",
		"judges/judge.ts": `import { defineCodeJudge } from '@agentv/eval';
export default defineCodeJudge((input) => {
  const content = input.expectedOutput[0]?.content as Record<string, unknown>;
  const ok = content?.riskLevel === 'High' && input.actualOutput.includes('High');
  return { score: ok ? 1 : 0, hits: ok ? ['riskLevel kept its key'] : [], misses: ok ? [] : ['riskLevel lost'] };
});
`,
		"judges/judge.mjs": `import { defineCodeJudge } from '@agentv/eval';
export default defineCodeJudge(async (input) => ({ score: input.question.includes('risk') ? 1 : 0, reasoning: 'js judge' }));
`,
		"judges/core.mjs": `import { readCodeJudgePayload } from '@agentv/core';
const p = readCodeJudgePayload();
console.log(JSON.stringify({ score: p.expectedOutcome ? 1 : 0, reasoning: 'core ' + p.expectedOutcome }));
`,
		"judges/judge.py": `import json, sys
p = json.load(sys.stdin)
print(json.dumps({"score": 1 if p["expected_output"][0]["content"]["riskLevel"] == "High" else 0}))
`,
		"evals/suite.yaml": `evalcases:
  - id: risk
    input: What is the risk level?
    expected_outcome: Classifies as high risk
    expected_output:
      riskLevel: High
    evaluators:
      - {name: ts-template, type: llm_judge, prompt: ../prompts/template.ts, rubric: strict}
      - {name: js-template, type: llm_judge, prompt: ../prompts/template.js}
      - name: argv-template
        type: llm_judge
        prompt:
          script: [python3, ../prompts/argv.py]
          config: {level: 2}
      - {name: txt-template, type: llm_judge, prompt: ../prompts/plain.txt}
      - {name: ts-judge, type: code_judge, script: [` + tsRuntime() + `, ../judges/judge.ts]}
      - {name: js-judge, type: code_judge, script: [node, ../judges/judge.mjs]}
      - {name: core-judge, type: code_judge, script: [node, ../judges/core.mjs]}
      - {name: py-judge, type: code_judge, script: [python3, ../judges/judge.py]}
`,
	})
	res := agentv(t, dir, nil, "eval", "evals/suite.yaml")
	if res.code != 0 || len(res.records) != 1 {
		t.Fatalf("exit %d, %d records\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	r := res.records[0]
	prompts := map[string]string{}
	scores := map[string]float64{}
	for _, e := range r.EvaluatorResults {
		scores[e.Name] = e.Score
		if e.Error != "" {
			t.Errorf("%s errored: %s", e.Name, e.Error)
		}
		if e.Type == "llm_judge" {
			prompts[e.Name] = parseJudgeReq(t, e.EvaluatorProviderRequest).UserPrompt
		}
	}
	wantPrompts := map[string]string{
		"ts-template":   `TS template. Q=What is the risk level? A={"riskLevel": "High", "answer": 42} rubric=strict expected=Classifies as high risk`,
		"js-template":   `JS template. Q=What is the risk level? A={"riskLevel": "High", "answer": 42}`,
		"argv-template": `PY template. Q=What is the risk level? cfg={"level": 2}`,
		"txt-template":  `TXT template. Q=What is the risk level? A={"riskLevel": "High", "answer": 42} E=[`,
	}
	for name, want := range wantPrompts {
		if got := prompts[name]; !strings.HasPrefix(got, want) {
			t.Errorf("%s: judge received %q, want it to start with %q", name, got, want)
		}
	}
	if !strings.Contains(prompts["txt-template"], `"riskLevel": "High"`) {
		t.Errorf("txt-template: expected_output not substituted: %q", prompts["txt-template"])
	}
	for name, want := range map[string]float64{"ts-template": 0.9, "js-template": 0.9, "argv-template": 0.9, "txt-template": 0.9,
		"ts-judge": 1, "js-judge": 1, "core-judge": 1, "py-judge": 1} {
		if got, ok := scores[name]; !ok || got != want {
			t.Errorf("%s score = %v (present %v), want %v", name, got, ok, want)
		}
	}
}

func tsRuntime() string {
	if _, err := exec.LookPath("tsx"); err == nil {
		return "tsx"
	}
	return "bun"
}
