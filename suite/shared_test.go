package suite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/textfmt"
)

// TestSharedSuiteReading pins what both front-ends read through one code path (top-level
// name, description and target, execution's target and threshold, a JSONL line that is not
// JSON): the suite they build and every diagnostic, with file, line and column.
func TestSharedSuiteReading(t *testing.T) {
	t.Parallel()
	const case25 = "evalcases:\n  - id: a\n    input: hi\n    expected_outcome: ok\n"
	const test4 = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n"
	tests := []struct {
		name  string
		files map[string]string
		path  string
		want  string // "name|dataset|description|target|threshold" then the diagnostics
	}{
		{"2.5 header", map[string]string{"eval.yaml": "$schema: s\ndescription: d\ntarget: t1\n" + case25},
			"eval.yaml", "|eval|d|t1|\n"},
		{"2.5 has no name, execution.target wins", map[string]string{"eval.yaml": "name: n\ntarget: t1\nexecution: {target: t2}\ndescription: [x]\n" + case25},
			"eval.yaml", "|eval|d?|t2|\n" +
				`eval.yaml:1:1: unknown key "name" at the top level (ignored) [warning unknown-key]` + "\n" +
				`eval.yaml:4:14: "description" should be a string, got a list (ignored) [warning structure]` + "\n"},
		{"4.x header", map[string]string{"eval.yaml": "$schema: s\nname: n\ndescription: d\ntarget: t1\nexecution: {target: t2, threshold: 0.5}\n" + test4},
			"eval.yaml", "n|n|d|t2|0.5\n"},
		{"4.x bad description and threshold", map[string]string{"eval.yaml": "description: {a: 1}\nexecution:\n  threshold: 2\n" + test4},
			"eval.yaml", "|eval|d?||\n" +
				`eval.yaml:1:14: "description" should be a string, got a mapping (ignored) [warning structure]` + "\n" +
				`eval.yaml:3:14: execution "threshold" must be a number from 0 to 1, got "2" [error structure]` + "\n"},
		{"4.x test threshold", map[string]string{"eval.yaml": "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    execution: {threshold: x}\n"},
			"eval.yaml", "|eval|||\n" +
				`eval.yaml:5:28: execution "threshold" must be a number from 0 to 1, got "x" (case "a" not loaded) [error case case=a]` + "\n"},
		{"a % in an id stays text in the not-loaded notes", map[string]string{"eval.yaml": "tests:\n  - id: a%d\n    input: hi\n    criteria: ok\n    execution: {threshold: x}\n" +
			"  - id: b%s\n    input: hi\n    criteria: ok\n    depends_on: [b%s]\n"},
			"eval.yaml", "|eval|||\n" +
				`eval.yaml:5:28: execution "threshold" must be a number from 0 to 1, got "x" (case "a%d" not loaded) [error case case=a%d]` + "\n" +
				`eval.yaml:9:18: test "b%s" depends on itself (case "b%s" not loaded) [error case case=b%s]` + "\n"},
		{"4.x messages name the key the test wrote", map[string]string{"eval.yaml": "tests:\n  - id: a\n    input: hi\n    criteria: [x, y]\n" +
			"  - id: b\n    input: hi\n    expected_outcome: {x: 1}\n"},
			"eval.yaml", "|eval|||\n" +
				`eval.yaml:4:15: "criteria" must be a string, got a list (case "a" not loaded) [error case case=a]` + "\n" +
				`eval.yaml:7:5: "expected_outcome" is deprecated: write "criteria" [warning ignored-key case=b]` + "\n" +
				`eval.yaml:7:23: "expected_outcome" must be a string, got a mapping (case "b" not loaded) [error case case=b]` + "\n"},
		{"2.5 execution blocks", map[string]string{"eval.yaml": "execution: {target: t, trials: 2, assertions: [], tagret: x}\n" +
			"evalcases:\n  - id: a\n    input: hi\n    expected_outcome: ok\n    execution: {target: c, evaluatr: x, target: d}\n" +
			"  - id: b\n    input: hi\n    expected_outcome: ok\n    execution: [x]\n"},
			"eval.yaml", "|eval||t|\n" +
				`eval.yaml:1:24: unknown key "trials" in execution (ignored) [warning unknown-key]` + "\n" +
				`eval.yaml:1:35: unknown key "assertions" in execution (ignored) [warning unknown-key]` + "\n" +
				`eval.yaml:1:51: unknown key "tagret" in execution (ignored); did you mean "target"? [warning unknown-key]` + "\n" +
				`eval.yaml:6:28: unknown key "evaluatr" in execution (ignored); did you mean "evaluators"? [warning unknown-key case=a]` + "\n" +
				`eval.yaml:6:41: duplicate key "target" (also at line 6); this later value is used [warning ignored-key case=a]` + "\n" +
				`eval.yaml:10:16: "execution" must be a mapping with target and evaluators, got a list (case "b" not loaded) [error case case=b]` + "\n"},
		{"4.x execution blocks", map[string]string{"eval.yaml": "execution: [x]\n" +
			"tests:\n  - id: a\n    input: hi\n    criteria: ok\n    execution: {skip_defaults: true, target: t, trials: 2, assertions: [], treshold: 1}\n" +
			"  - id: b\n    input: hi\n    criteria: ok\n    execution: x\n"},
			"eval.yaml", "|eval|||\n" +
				`eval.yaml:1:12: "execution" must be a mapping with target, targets, threshold and trials, got a list [error structure]` + "\n" +
				`eval.yaml:6:38: a test's execution "target" is ignored (as in AgentV 4.x): use "targets" [warning ignored-key case=a]` + "\n" +
				`eval.yaml:6:49: a test's execution "trials" is ignored (as in AgentV 4.x): trials are set for the whole file, in its top-level execution [warning ignored-key case=a]` + "\n" +
				`eval.yaml:6:60: a test's execution "assertions" is ignored (as in AgentV 4.x): write "assertions" in the test itself [warning ignored-key case=a]` + "\n" +
				`eval.yaml:6:76: unknown key "treshold" in execution (ignored); did you mean "threshold"? [warning unknown-key case=a]` + "\n" +
				`eval.yaml:10:16: "execution" must be a mapping with skip_defaults and targets, got a string (case "b" not loaded) [error case case=b]` + "\n"},
		{"sidecar execution", map[string]string{"eval.jsonl": `{"id":"a","input":"hi","criteria":"ok"}` + "\n",
			"eval.yaml": "execution: {target: t, trials: 2, assertions: [{type: llm-grader}], evaluator: y}\n"},
			"eval.jsonl", "|eval||t|\n" +
				`eval.yaml:1:32: execution "trials" must be a mapping with count, strategy and cost_limit_usd, got a number [error structure]` + "\n" +
				`eval.yaml:1:69: unknown key "evaluator" in execution (ignored); did you mean "evaluators"? [warning unknown-key]` + "\n"},
		{"sidecar name and target", map[string]string{"eval.jsonl": `{"id":"a","input":"hi","expected_outcome":"ok"}` + "\n" + `{"id":` + "\n",
			"eval.yaml": "name: n\ndescription: d\ntarget: t1\nexecution: {target: t2}\n"},
			"eval.jsonl", "n|n|d|t2|\n" +
				`eval.jsonl:1:24: "expected_outcome" is deprecated: write "criteria" [warning ignored-key case=a]` + "\n" +
				`eval.jsonl:2:7: invalid JSON: unexpected end of JSON input (line skipped) [error syntax]` + "\n"},
		{"4.x JSONL test file", map[string]string{"eval.yaml": "tests: t.jsonl\n",
			"t.jsonl": "\r\n" + `{"id":"a","input":"hi","criteria":"ok"}` + "\r\n" + `{"id": "b", "input": nope}` + "\n"},
			"eval.yaml", "|eval|||\n" +
				`t.jsonl:3:23: invalid JSON: invalid character 'o' in literal null (expecting 'u') (line skipped) [error syntax]` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, tt.files, tt.path)
			desc := s.Description
			if desc == "" && strings.Contains(tt.want, "d?") {
				desc = "d?"
			}
			th := ""
			if s.Threshold != nil {
				th = textfmt.JSNumber(*s.Threshold)
			}
			got := strings.Join([]string{s.Name, s.Dataset, desc, s.Target, th}, "|") + "\n" + formatDiags(s.Diagnostics)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
