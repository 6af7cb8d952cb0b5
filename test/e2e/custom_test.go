package e2e_test

import (
	"os/exec"
	"strings"
	"testing"
)

// customProject is a project with AgentV 4.x custom assertion types: scripts in
// .agentv/assertions (and the older .agentv/graders) written with @agentv/sdk, which agentv
// provides (nothing is installed), and a nearer .agentv/assertions under evals/deep whose
// greets.js shadows the project's for the suite beside it.
var customProject = map[string]string{
	".git/HEAD": "ref: refs/heads/main\n",
	".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: "Hello, the capital of France is Paris."
`,
	".agentv/assertions/word-count.ts": `import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output }) => {
  const words = (output ?? '').split(/\s+/).filter(Boolean).length;
  return {
    pass: words <= 5,
    score: Math.min(1, 5 / words),
    reasoning: ` + "`${words} words`" + `,
    assertions: [{ text: 'at most 5 words', passed: words <= 5, evidence: ` + "`${words} words`" + ` }],
  };
});
`,
	".agentv/assertions/greets.js": `import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output }) => ({ pass: /hello/i.test(output ?? '') }));
`,
	".agentv/assertions/names-city.mts": `import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output, criteria }) => ({
  pass: (output ?? '').includes('Paris') && criteria.includes('Paris'),
}));
`,
	".agentv/graders/checks.ts": `import { defineCodeGrader } from '@agentv/sdk';

export default defineCodeGrader(({ output, input }) => ({
  score: 0.5,
  assertions: [
    { text: 'answered', passed: (output ?? '').length > 0 },
    { text: 'asked about France', passed: JSON.stringify(input).includes('France') },
  ],
}));
`,
	"evals/deep/.agentv/assertions/greets.js": `import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(() => ({ score: 0.25 }));
`,
	"evals/custom.eval.yaml": `name: custom
assertions:
  - type: greets
tests:
  - id: words
    input: What is the capital of France?
    criteria: Names Paris
    assertions:
      - type: word-count
      - type: names-city
        weight: 2
  - id: grader
    input: What is the capital of France?
    assertions:
      - type: checks
      - type: contains
        value: Paris
`,
	"evals/deep/near.eval.yaml": `tests:
  - id: near
    input: Say hello
    assertions:
      - type: greets
      - type: word_count
`,
}

// TestCustomAssertions runs custom assertion types found by convention. The expected scores
// are AgentV 4.42.4's on the same files (run side by side, its @agentv/sdk resolvable): words
// 0.9285714285714286 (word-count 5/7, names-city 1 at weight 2, the suite's greets 1), grader
// 0.8333333333333334 (checks 0.5, contains 1, greets 1), near 0.48214285714285715 (the nearer
// greets.js 0.25, word_count found as word-count.ts 5/7).
func TestCustomAssertions(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "node")
	if _, err := exec.LookPath("bun"); err != nil {
		requireTools(t, "tsx")
	}
	dir := t.TempDir() // outside the repository: @agentv/sdk can only come from agentv
	writeFiles(t, dir, customProject)
	res := agentv(t, dir, nil, "eval", "evals")
	if res.code != 1 { // near is below the case threshold
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	type grader struct {
		name   string
		score  float64
		misses string
	}
	want := map[string]struct {
		score   float64
		graders []grader
	}{
		"words":  {0.9285714285714286, []grader{{"word-count", 5.0 / 7, "at most 5 words"}, {"names-city", 1, ""}, {"greets", 1, ""}}},
		"grader": {0.8333333333333334, []grader{{"checks", 0.5, ""}, {"contains-Paris", 1, ""}, {"greets", 1, ""}}},
		"near":   {0.48214285714285715, []grader{{"greets", 0.25, ""}, {"word-count", 5.0 / 7, "at most 5 words"}}},
	}
	got := res.byID()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d:\n%s%s", len(got), len(want), res.stdout, res.stderr)
	}
	for id, w := range want {
		r := got[id]
		if r == nil {
			t.Errorf("no record for %s", id)
			continue
		}
		if r.Score != w.score || len(r.EvaluatorResults) != len(w.graders) {
			t.Errorf("%s: score %v with %d graders, want %v with %d", id, r.Score, len(r.EvaluatorResults), w.score, len(w.graders))
			continue
		}
		for i, g := range w.graders {
			e := r.EvaluatorResults[i]
			if e.Name != g.name || e.Score != g.score || strings.Join(e.Misses, "; ") != g.misses || e.Error != "" {
				t.Errorf("%s grader %d: %s %v misses %q error %q, want %s %v misses %q", id, i, e.Name, e.Score, e.Misses, e.Error, g.name, g.score, g.misses)
			}
		}
	}
	if h := got["grader"].EvaluatorResults[0].Hits; strings.Join(h, "; ") != "answered; asked about France" {
		t.Errorf("checks hits = %q", h)
	}
}

// TestCustomAssertionSettings covers what 4.42.4 does differently or not at all: the keys of a
// custom assertion besides its own settings reach the script as config (4.42.4 drops them and
// sends config: null), an unknown type is a load error naming where the script was looked for
// (4.42.4 fails the grader at run time), and validate knows the custom types.
func TestCustomAssertionSettings(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "node")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: one two three\n",
		".agentv/assertions/max-words.js": `import { defineAssertion } from '@agentv/sdk';

export default defineAssertion(({ output, config }) => {
  const words = (output ?? '').split(/\s+/).filter(Boolean).length;
  return { pass: words <= config.maxWords, reasoning: ` + "`${words} of ${config.maxWords} (${config.label})`" + ` };
});
`,
		"evals/ok.eval.yaml": `tests:
  - id: cfg
    input: Count
    assertions:
      - type: max-words
        max_words: 2
        label: strict
        weight: 3
      - type: max-words
        name: lenient
        max_words: 5
`,
		"bad/bad.eval.yaml": `tests:
  - id: typo
    input: Count
    assertions:
      - type: max-word
`,
	})
	res := agentv(t, dir, nil, "eval", "evals")
	r := res.byID()["cfg"]
	if res.code != 1 || r == nil || len(r.EvaluatorResults) != 2 {
		t.Fatalf("exit %d, record %+v\n%s%s", res.code, r, res.stdout, res.stderr)
	}
	if e := r.EvaluatorResults[0]; e.Name != "max-words" || e.Score != 0 || e.Weight != 3 || e.Reasoning != "3 of 2 (strict)" {
		t.Errorf("first grader = %s %v weight %v %q", e.Name, e.Score, e.Weight, e.Reasoning)
	}
	if e := r.EvaluatorResults[1]; e.Name != "lenient" || e.Score != 1 || e.Reasoning != "3 of 5 (undefined)" {
		t.Errorf("second grader = %s %v %q", e.Name, e.Score, e.Reasoning)
	}
	if r.Score != 0.25 {
		t.Errorf("score %v, want 0.25", r.Score)
	}

	for _, cmd := range []string{"eval", "validate"} {
		res = agentv(t, dir, nil, cmd, "bad")
		want := `bad/bad.eval.yaml:5:15: unknown evaluator type "max-word": not a built-in type, and no custom assertion script max-word.ts (or .js, .mts, .mjs) in the .agentv/assertions, .agentv/graders or .agentv/judges folder of bad or of a folder above it`
		if res.code != 2 || !strings.Contains(res.stdout+res.stderr, want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s%s", cmd, res.code, want, res.stdout, res.stderr)
		}
	}
	if res = agentv(t, dir, nil, "validate", "evals"); res.code != 0 {
		t.Errorf("validate of custom types: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestSDK4GraderAndTemplate runs a code-grader and an llm-grader prompt template written with
// @agentv/sdk's defineCodeGrader and definePromptTemplate, started by an explicit `bun run`.
// AgentV 4.42.4, run side by side on the same files, scores the test 0.75: the code grader 1 (all
// three checks pass, `strict_mode` read as config.strictMode) and the judge 0.5, asked with the
// prompt "Grade this answer: The capital of France is Paris.\nAgainst: Names Paris".
func TestSDK4GraderAndTemplate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "bun")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: "The capital of France is Paris."
    grader_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.5, "hits": ["judged"], "assertions": [{"text": "judged", "passed": true}]}'
`,
		"evals/judges/grade.ts": `import { defineCodeGrader } from '@agentv/sdk';

export default defineCodeGrader(({ output, expectedOutput, criteria, config }) => {
  const want = String(expectedOutput.at(-1)?.content ?? '');
  const checks = [
    { text: 'names the expected city', passed: (output ?? '').includes(want) },
    { text: 'criteria given', passed: criteria.length > 0 },
    { text: 'strict mode', passed: config?.strictMode === true },
  ];
  return { score: checks.filter((c) => c.passed).length / checks.length, assertions: checks };
});
`,
		"evals/prompts/grade-prompt.ts": "import { definePromptTemplate } from '@agentv/sdk';\n\n" +
			"export default definePromptTemplate((ctx) => `Grade this answer: ${ctx.output}\\nAgainst: ${ctx.criteria}`);\n",
		"evals/sdk.eval.yaml": `name: sdk4
tests:
  - id: graded
    input: What is the capital of France?
    criteria: Names Paris
    expected_output: Paris
    assertions:
      - type: code-grader
        command: [bun, run, judges/grade.ts]
        strict_mode: true
      - type: llm-grader
        prompt:
          command: [bun, run, prompts/grade-prompt.ts]
`,
	})
	res := agentv(t, dir, nil, "eval", "evals")
	r := res.byID()["graded"]
	if res.code != 1 || r == nil || len(r.EvaluatorResults) != 2 {
		t.Fatalf("exit %d, record %+v\n%s%s", res.code, r, res.stdout, res.stderr)
	}
	code, judge := r.EvaluatorResults[0], r.EvaluatorResults[1]
	if r.Score != 0.75 || code.Score != 1 || judge.Score != 0.5 || code.Error != "" || judge.Error != "" {
		t.Errorf("score %v (code %v %q, judge %v %q), want 0.75 (1, 0.5)", r.Score, code.Score, code.Error, judge.Score, judge.Error)
	}
	if h := strings.Join(code.Hits, "; "); h != "names the expected city; criteria given; strict mode" {
		t.Errorf("code grader hits %q", h)
	}
	if !strings.Contains(string(judge.EvaluatorProviderRequest), `"Grade this answer: The capital of France is Paris.\nAgainst: Names Paris"`) {
		t.Errorf("judge prompt: %s", judge.EvaluatorProviderRequest)
	}
}
