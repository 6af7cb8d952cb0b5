// Package suitegen writes synthetic eval suites in the AgentV 2.5 format (and, in mode v4,
// the AgentV 4.x format) for tests and benchmarks. They run offline: a mock target answers every case and a mock judge returns a
// passing verdict, so every case of every mode scores 1. Cases differ only in their id and
// question number, so the cost of a suite grows linearly with its size.
//
// WriteDifferential (differential.go) writes a different kind of suite: AgentV 4.x files that
// exercise every assertion type, for comparing agentv with AgentV 4.42.4 (test/differential).
package suitegen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Modes name the evaluator every case of a suite carries:
//
//	fa         field_accuracy, exact match of $.answer (in process)
//	code_py    code_judge run as [python3, judge.py] (one process per case)
//	code_node  code_judge run as [node, judge.mjs] (one process per case)
//	llm        llm_judge with the default prompt, answered by the mock judge
//	none       no evaluator: the runner's default llm_judge
//	delay      field_accuracy against the --dry-run answer; run with --dry-run --dry-run-delay MS
//	v4         an AgentV 4.x file (tests, criteria, assertions): contains, is-json, regex and
//	           field-accuracy, all in process
var Modes = []string{"fa", "code_py", "code_node", "llm", "none", "delay", "v4"}

// Answers and texts the suites use; tests check them.
const (
	// MockAnswer is what the mock target answers.
	MockAnswer = `{"answer":"42"}`
	// DryRunAnswer is what the runner's --dry-run target answers.
	DryRunAnswer = `{"answer":"Mock dry-run response"}`
	// System is every case's system message.
	System = `You are a careful assistant. Answer with a single JSON object {"answer": "<value>"}.`
	// Outcome is every case's expected outcome.
	Outcome = "The assistant answers 42 as JSON."
	// Target and JudgeTarget are the names of the mock target and of its judge.
	Target      = "mock"
	JudgeTarget = "mock_judge"
)

const verdict = `{"score":1,"hits":["canned hit"],"misses":[],"reasoning":"canned verdict of the mock judge"}`

// Question is the user message of case i (1-based).
func Question(i int) string {
	return fmt.Sprintf("Question %d: what is six times seven? Reply with the JSON object only.", i)
}

// CaseID is the id of case i (1-based).
func CaseID(i int) string { return fmt.Sprintf("case-%05d", i) }

// Write creates dir/<mode>-<n>/ holding .agentv/targets.yaml, eval.yaml with n cases and the
// judge script the mode runs, and returns that directory.
func Write(dir, mode string, n int) (string, error) {
	ev, ok := evaluators[mode]
	if !ok {
		return "", fmt.Errorf("unknown mode %q (want one of %s)", mode, strings.Join(Modes, ", "))
	}
	if n < 1 {
		return "", fmt.Errorf("a suite needs at least one case, got %d", n)
	}
	out := filepath.Join(dir, fmt.Sprintf("%s-%d", mode, n))
	files := map[string]string{
		filepath.Join(".agentv", "targets.yaml"): targetsYAML(),
		"eval.yaml":                              evalYAML(mode, ev, n),
	}
	switch mode {
	case "code_py":
		files["judge.py"] = judgePy
	case "code_node":
		files["judge.mjs"] = judgeMjs
	}
	for name, body := range files {
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	return out, nil
}

// evaluators holds each mode's evaluator list item, indented for a case's execution block.
var evaluators = map[string]string{
	"fa":        faEvaluator,
	"delay":     faEvaluator,
	"code_py":   "        - name: cj\n          type: code_judge\n          script: [python3, judge.py]\n",
	"code_node": "        - name: cj\n          type: code_judge\n          script: [node, judge.mjs]\n",
	"llm":       "        - name: lj\n          type: llm_judge\n",
	"none":      "",
	"v4":        "",
}

const faEvaluator = "        - name: fa\n          type: field_accuracy\n          fields:\n            - path: answer\n              match: exact\n"

func evalYAML(mode, ev string, n int) string {
	if mode == "v4" {
		return evalYAMLV4(n)
	}
	expected := MockAnswer
	if mode == "delay" {
		expected = DryRunAnswer
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# written by internal/suitegen: mode %s, %d cases\n", mode, n)
	fmt.Fprintf(&b, "description: synthetic offline suite (%s, %d cases)\n", mode, n)
	fmt.Fprintf(&b, "execution:\n  target: %s\nevalcases:\n", Target)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - id: %s\n", CaseID(i))
		fmt.Fprintf(&b, "    expected_outcome: %s\n", quote(Outcome))
		fmt.Fprintf(&b, "    input_messages:\n      - role: system\n        content: %s\n      - role: user\n        content: %s\n",
			quote(System), quote(Question(i)))
		fmt.Fprintf(&b, "    expected_messages:\n      - role: assistant\n        content: %s\n", quote(expected))
		if ev != "" {
			b.WriteString("    execution:\n      evaluators:\n" + ev)
		}
	}
	return b.String()
}

// evalYAMLV4 writes an AgentV 4.x suite: each test has criteria, messages as input, an
// expected output and four deterministic assertions.
func evalYAMLV4(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# written by internal/suitegen: mode v4, %d tests\n", n)
	fmt.Fprintf(&b, "name: synthetic-v4\ndescription: synthetic offline AgentV 4.x suite (%d tests)\n", n)
	fmt.Fprintf(&b, "execution:\n  target: %s\ntests:\n", Target)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - id: %s\n", CaseID(i))
		fmt.Fprintf(&b, "    criteria: %s\n", quote(Outcome))
		fmt.Fprintf(&b, "    input:\n      - role: system\n        content: %s\n      - role: user\n        content: %s\n",
			quote(System), quote(Question(i)))
		fmt.Fprintf(&b, "    expected_output: %s\n", quote(MockAnswer))
		b.WriteString("    assertions:\n" +
			"      - type: contains\n        value: '42'\n" +
			"      - type: is-json\n" +
			"      - type: regex\n        value: '\"answer\" *: *\"4[0-9]\"'\n" +
			"      - type: field-accuracy\n        fields:\n          - path: answer\n            match: exact\n")
	}
	return b.String()
}

func targetsYAML() string {
	return "targets:\n" +
		"  - name: " + Target + "\n    provider: mock\n    response: " + quote(MockAnswer) + "\n    judge_target: " + JudgeTarget + "\n" +
		"  - name: " + JudgeTarget + "\n    provider: mock\n    response: " + quote(verdict) + "\n"
}

// quote renders s as a YAML single-quoted scalar.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// The code judges pass when the candidate answer contains 42.
const judgePy = `import json
import sys

payload = json.load(sys.stdin)
answer = payload.get("candidate_answer")
if not isinstance(answer, str):
    answer = json.dumps(answer)
passed = "42" in answer
print(json.dumps({
    "score": 1.0 if passed else 0.0,
    "hits": ["contains 42"] if passed else [],
    "misses": [] if passed else ["does not contain 42"],
    "reasoning": "python judge",
}))
`

const judgeMjs = `let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const payload = JSON.parse(input);
  let answer = payload.candidate_answer;
  if (typeof answer !== 'string') answer = JSON.stringify(answer);
  const passed = answer.includes('42');
  process.stdout.write(JSON.stringify({
    score: passed ? 1 : 0,
    hits: passed ? ['contains 42'] : [],
    misses: passed ? [] : ['does not contain 42'],
    reasoning: 'node judge',
  }));
});
`
