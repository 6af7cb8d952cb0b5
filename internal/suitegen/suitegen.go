// Package suitegen writes synthetic eval suites in the AgentV 2.5 format (and, in mode v4,
// the AgentV 4.x format) for tests and benchmarks. They run offline: a mock target answers every
// case and a mock judge returns a passing verdict, so every case of every mode scores 1. Cases
// differ only in their id and question number, so the cost of a suite grows linearly with its size.
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

// evaluators holds each mode's graders, as the lines that end a case.
var evaluators = map[string]string{
	"fa":        execution(faEvaluator),
	"delay":     execution(faEvaluator),
	"code_py":   execution("        - name: cj\n          type: code_judge\n          script: [python3, judge.py]\n"),
	"code_node": execution("        - name: cj\n          type: code_judge\n          script: [node, judge.mjs]\n"),
	"llm":       execution("        - name: lj\n          type: llm_judge\n"),
	"none":      "",
	"v4": "    assertions:\n" +
		"      - type: contains\n        value: '42'\n" +
		"      - type: is-json\n" +
		"      - type: regex\n        value: '\"answer\" *: *\"4[0-9]\"'\n" +
		"      - type: field-accuracy\n        fields:\n          - path: answer\n            match: exact\n",
}

const faEvaluator = "        - name: fa\n          type: field_accuracy\n          fields:\n            - path: answer\n              match: exact\n"

func execution(list string) string { return "    execution:\n      evaluators:\n" + list }

// evalYAML writes n cases of a mode; v4 writes an AgentV 4.x suite (tests, criteria, input,
// expected_output, assertions) with the same contents.
func evalYAML(mode, ev string, n int) string {
	head := fmt.Sprintf("# written by internal/suitegen: mode %s, %d cases\n"+
		"description: synthetic offline suite (%s, %d cases)\n", mode, n, mode, n)
	list, outcome, input := "evalcases", "expected_outcome", "input_messages"
	expected := "expected_messages:\n      - role: assistant\n        content: " + quote(MockAnswer)
	switch mode {
	case "delay":
		expected = "expected_messages:\n      - role: assistant\n        content: " + quote(DryRunAnswer)
	case "v4":
		head = fmt.Sprintf("# written by internal/suitegen: mode v4, %d tests\nname: synthetic-v4\n"+
			"description: synthetic offline AgentV 4.x suite (%d tests)\n", n, n)
		list, outcome, input = "tests", "criteria", "input"
		expected = "expected_output: " + quote(MockAnswer)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sexecution:\n  target: %s\n%s:\n", head, Target, list)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - id: %s\n    %s: %s\n", CaseID(i), outcome, quote(Outcome))
		fmt.Fprintf(&b, "    %s:\n      - role: system\n        content: %s\n      - role: user\n        content: %s\n",
			input, quote(System), quote(Question(i)))
		fmt.Fprintf(&b, "    %s\n%s", expected, ev)
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
