package e2e_test

import (
	"strings"
	"testing"
)

// TestAgentSkillsEvals runs an Agent Skills evals.json found by a glob. The mock judge answers
// 0.75 to every prompt (in both verdict shapes, AgentV 4.x's and ours); AgentV 4.42.4, run side by
// side on the same files, scores each eval 0.75: eval 1 through its two assertion graders
// (assertion-1, assertion-2), evals 2 and 3 through the default grader (no assertions, or an
// empty list). Each assertion grader judges its own string as the criteria.
func TestAgentSkillsEvals(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": `targets:
  - name: default
    provider: mock
    response: "Hello, the capital of France is Paris."
    grader_target: judge
  - name: judge
    provider: mock
    response: '{"score": 0.75, "hits": ["ok"], "assertions": [{"text": "ok", "passed": true}], "reasoning": "fine"}'
`,
		"skills/greeter/notes.txt": "hello notes\n",
		"skills/greeter/evals.json": `{
  "skill_name": "greeter",
  "evals": [
    {"id": 1, "prompt": "Say hello", "expected_output": "A greeting", "files": ["notes.txt"],
     "assertions": ["Greets the user", "Mentions Paris"]},
    {"id": 2, "prompt": "What is 2+2?", "expected_output": "4"},
    {"id": 3, "prompt": "No expected output", "assertions": []}
  ]
}
`,
		"skills/greeter/package.json": `{"name": "not-an-eval"}`,
	})
	res := agentv(t, dir, nil, "eval", "skills/**/evals.json")
	if res.code != 1 { // 0.75 is below the default case threshold
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]string{"1": "assertion-1 assertion-2", "2": "llm_judge", "3": "llm_judge"}
	got := res.byID()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d:\n%s%s", len(got), len(want), res.stdout, res.stderr)
	}
	for id, graders := range want {
		r := got[id]
		if r == nil {
			t.Errorf("no record for eval %s", id)
			continue
		}
		var names []string
		for _, e := range r.EvaluatorResults {
			names = append(names, e.Name)
		}
		if r.Score != 0.75 || r.Dataset != "greeter" || strings.Join(names, " ") != graders {
			t.Errorf("eval %s: score %v dataset %q graders %q, want 0.75 greeter %q", id, r.Score, r.Dataset, names, graders)
		}
	}
	for i, criterion := range []string{"Greets the user", "Mentions Paris"} {
		prompt := string(got["1"].EvaluatorResults[i].EvaluatorProviderRequest)
		other := []string{"Mentions Paris", "Greets the user"}[i]
		if !strings.Contains(prompt, `## ]]\n`+criterion+`\n`) || !strings.Contains(prompt, "Hello, the capital of France is Paris.") ||
			!strings.Contains(prompt, `reference_answer ## ]]\nA greeting`) || strings.Contains(prompt, other) {
			t.Errorf("assertion-%d prompt does not judge %q against the answer: %s", i+1, criterion, prompt)
		}
	}
	if res := agentv(t, dir, nil, "validate", "skills/greeter/evals.json"); res.code != 0 {
		t.Errorf("validate: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
