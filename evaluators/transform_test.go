package evaluators

import (
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// loadV5OneTest loads a one-test AgentV 5.x file (prompts "{{ input }}") written in dir.
func loadV5OneTest(t *testing.T, dir, body string) *suite.Case {
	t.Helper()
	s := suite.Load(writeFile(t, dir, "t.eval.yaml", "prompts: [\"{{ input }}\"]\n"+body), suite.LoadOptions{Cwd: dir})
	if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
		t.Fatalf("%d cases, diagnostics %v", len(s.Cases), s.Diagnostics)
	}
	return s.Cases[0]
}

// TestTransforms runs 5.x transforms from a loaded file: the test's (default_test's unless
// the test has its own) shapes what every assertion sees, an assertion's only its own and
// after the test's; a throwing assertion transform fails that assertion alone, a throwing
// test transform errors every assertion.
func TestTransforms(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	type want struct {
		score   float64
		verdict string
		miss    string // in the misses, "" for none
	}
	tests := []struct {
		name, body, answer string
		want               []want
	}{
		{"assertion expression, body and file", `tests:
  - id: t
    vars: {input: x}
    assert:
      - {type: equals, value: Forty-Two, transform: JSON.parse(output).answer}
      - type: equals
        value: forty-two
        transform: |
          const parsed = JSON.parse(output);
          return parsed.answer.toLowerCase();
      - {type: equals, value: Forty-Two, transform: "file://pick.js"}
      - {type: equals, value: "FORTY-TWO", transform: "file://pick.js:shout"}
      - {type: contains, value: extra}
`, `{"answer": "Forty-Two", "extra": 1}`, []want{
			{1, results.BandPass, ""}, {1, results.BandPass, ""}, {1, results.BandPass, ""}, {1, results.BandPass, ""}, {1, results.BandPass, ""}}},
		{"test transform for all, assertion after it", `default_test:
  options: {transform: output.toUpperCase()}
tests:
  - id: t
    vars: {input: x}
    assert:
      - {type: equals, value: "A B C"}
      - {type: equals, value: "C B A", transform: "output.split(' ').reverse().join(' ')"}
`, "a b c", []want{{1, results.BandPass, ""}, {1, results.BandPass, ""}}},
		{"own options win over default_test's", `default_test:
  options: {transform: output.toUpperCase()}
tests:
  - id: t
    vars: {input: x, n: 2}
    options: {transform: "output.repeat({{ n }})"}
    assert:
      - {type: equals, value: abab}
`, "ab", []want{{1, results.BandPass, ""}}},
		{"an object is indented JSON; the next transform gets the object", `tests:
  - id: t
    vars: {input: x}
    options: {transform: "({a: output})"}
    assert:
      - {type: contains, value: "\"a\": \"hi\""}
      - {type: equals, value: hi, transform: output.a}
`, "hi", []want{{1, results.BandPass, ""}, {1, results.BandPass, ""}}},
		{"context carries vars and the prompt", `tests:
  - id: t
    vars: {input: question, who: Ada}
    assert:
      - {type: equals, value: "Ada:question", transform: "context.vars.who + ':' + context.prompt.raw"}
`, "x", []want{{1, results.BandPass, ""}}},
		{"a throwing assertion transform fails that assertion only", `tests:
  - id: t
    vars: {input: x}
    assert:
      - {type: equals, value: x, transform: JSON.parse(output).answer}
      - {type: contains, value: json}
      - {type: equals, value: x, transform: "undefined"}
`, "not json", []want{{0, results.BandFail, "Transform failed ([inline transform]: JSON.parse(output).answer)"},
			{1, results.BandPass, ""}, {0, results.BandFail, "did not return a value"}}},
		{"a throwing test transform errors the test", `tests:
  - id: t
    vars: {input: x}
    options: {transform: "JSON.parse(output)"}
    assert:
      - {type: contains, value: x}
      - {type: contains, value: y}
`, "not json", []want{{0, results.BandFail, "Transform failed"}, {0, results.BandFail, "Transform failed"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "pick.js", "module.exports = (o) => JSON.parse(o).answer;\nmodule.exports.shout = (o) => JSON.parse(o).answer.toUpperCase();\n")
			c := loadV5OneTest(t, dir, tt.body)
			out := Evaluate(t.Context(), riskInput(c, tt.answer), &Options{})
			if len(out.Results) != len(tt.want) {
				t.Fatalf("%d results, want %d: %+v", len(out.Results), len(tt.want), out.Results)
			}
			for i, w := range tt.want {
				r := out.Results[i]
				misses := strings.Join(r.Misses, "|")
				if r.Score != w.score || (r.Verdict != w.verdict && r.Error == "") || (w.miss == "") != (misses == "") || !strings.Contains(misses, w.miss) {
					t.Errorf("result %d: score %v verdict %s error %q misses %q; want %+v", i, r.Score, r.Verdict, r.Error, misses, w)
				}
			}
		})
	}
}

// TestTransformAssertSet: a set's transform reaches its members, and a member's own applies
// after it; members written in 5.x (metric, llm-rubric strings) are converted as the
// test's own assertions are.
func TestTransformAssertSet(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	c := loadV5OneTest(t, t.TempDir(), `tests:
  - id: t
    vars: {input: x}
    assert:
      - type: assert-set
        metric: group
        transform: output.trim()
        assert:
          - {type: equals, value: hi}
          - {type: equals, value: HI, transform: output.toUpperCase(), metric: upper}
          - type: assert-set
            assert:
              - {type: icontains, value: HI, metric: inner}
`)
	set := c.Evaluators[0]
	if set.Transform == nil || len(set.Members) != 3 || set.Members[1].Name != "upper" || set.Members[1].Transform == nil {
		t.Fatalf("set %+v members %+v", set, set.Members)
	}
	out := Evaluate(t.Context(), riskInput(c, "  hi  "), &Options{})
	r := out.Results[0]
	if r.Score != 1 || r.Verdict != results.BandPass || len(r.EvaluatorResults) != 3 || r.EvaluatorResults[2].EvaluatorResults[0].Name != "inner" {
		t.Errorf("set: %+v", r)
	}
}
