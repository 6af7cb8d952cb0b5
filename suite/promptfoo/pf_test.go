package promptfoo

import (
	"encoding/json"
	"fmt"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/suite/internal/suitetest"
	"slices"
	"strings"
	"testing"
)

// TestPromptfooDetect: a file is read as promptfoo by its name or by a key only promptfoo has;
// other files keep their dialect.
func TestPromptfooDetect(t *testing.T) {
	t.Parallel()
	pf := "providers: [openai:chat:m]\nprompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: says hi}]\n"
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"by name", "promptfooconfig.yaml", "prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: says hi}]\n", suite.DialectPromptfoo},
		{"by providers", "suite.yaml", pf, suite.DialectPromptfoo},
		{"by defaultTest", "suite.yaml", "defaultTest: {vars: {q: hi}}\nprompts: ['{{q}}']\ntests:\n  - assert: [{type: llm-rubric, value: says hi}]\n", suite.DialectPromptfoo},
		{"5.x", "suite.eval.yaml", "prompts: ['{{q}}']\ntests:\n  - id: a\n    vars: {q: hi}\n    assert: [{type: llm-rubric, value: says hi}]\n", suite.Dialect5},
		{"scenarios beside 5.x keys", "suite.eval.yaml", "target: t\nprompts: ['{{q}}']\nscenarios:\n  - config: [{vars: {q: hi}}]\n    tests: [{assert: [{type: latency, threshold: 9}]}]\n", suite.Dialect5},
		{"scenarios alone", "suite.yaml", "prompts: ['{{q}}']\nscenarios:\n  - config: [{vars: {q: hi}}]\n    tests: [{assert: [{type: llm-rubric, value: hi}]}]\n", suite.DialectPromptfoo},
		{"4.x", "suite.eval.yaml", "tests:\n  - id: a\n    input: hi\n    criteria: says hi\n", suite.Dialect4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadTree(t, map[string]string{tc.file: tc.content}, tc.file)
			if s.Dialect != tc.want {
				t.Fatalf("dialect %q, want %q\n%s", s.Dialect, tc.want, suitetest.FormatDiags(s.Diagnostics))
			}
		})
	}
}

// TestPromptfooProviders: providers become the suite's target definitions, named as promptfoo
// reports them; one provider is the suite's target, several its matrix.
func TestPromptfooProviders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, providers string
		names           []string
		several         bool
	}{
		{"openai string", "[openai:chat:gpt-x]", []string{"openai:gpt-x"}, false},
		{"openai with base url", "[{id: openai:chat:m, config: {apiBaseUrl: 'http://127.0.0.1:1/v1'}}]", []string{"openai:chat:m"}, false},
		{"openai short", "[openai:m]", []string{"openai:m"}, false},
		{"anthropic", "[anthropic:messages:claude-x]", []string{"anthropic:claude-x"}, false},
		{"azure", "[azure:chat:dep]", []string{"azure:dep"}, false},
		{"google and exec", "[google:gemini-x, 'exec:python3 p.py']", []string{"google:gemini-x", "exec:python3 p.py"}, true},
		{"labels", "[{id: openai:chat:m, label: a}, {id: openai:chat:m, label: b}]", []string{"a", "b"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadTree(t, map[string]string{"promptfooconfig.yaml": "providers: " + tc.providers +
				"\nprompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: llm-rubric, value: says hi}]\n"}, "promptfooconfig.yaml")
			if suite.HasErrors(s.Diagnostics) {
				t.Fatalf("errors:\n%s", suitetest.FormatDiags(s.Diagnostics))
			}
			var names []string
			for _, d := range s.TargetDefs {
				names = append(names, d.Name)
			}
			if !slices.Equal(names, tc.names) {
				t.Errorf("targets %q, want %q", names, tc.names)
			}
			if tc.several && !slices.Equal(s.Targets, tc.names) || !tc.several && s.Target != tc.names[0] {
				t.Errorf("suite target %q, targets %q", s.Target, s.Targets)
			}
		})
	}
}

// TestPromptfooTests: ids, the defaultTest merge (its assertions first), thresholds and the
// grader of llm-rubric.
func TestPromptfooTests(t *testing.T) {
	t.Parallel()
	s := suitetest.LoadTree(t, map[string]string{"promptfooconfig.yaml": `providers: [openai:chat:m]
prompts: ["Say {{word}}"]
defaultTest:
  vars: {word: hello}
  threshold: 0.5
  options:
    provider: openai:chat:grader
  assert:
    - type: llm-rubric
      value: "mentions {{word}}"
tests:
  - description: named
    vars: {word: bye}
    assert:
      - type: llm-rubric
        value: is short
  - threshold: 0.9
    assert:
      - type: llm-rubric
        value: is friendly
`}, "promptfooconfig.yaml")
	if suite.HasErrors(s.Diagnostics) {
		t.Fatalf("errors:\n%s", suitetest.FormatDiags(s.Diagnostics))
	}
	if len(s.Cases) != 2 {
		t.Fatalf("got %d cases, want 2", len(s.Cases))
	}
	named, second := s.Cases[0], s.Cases[1]
	if named.ID != "named" || second.ID != "test-2" {
		t.Errorf("ids %q, %q; want named, test-2", named.ID, second.ID)
	}
	if got := named.Question; got != "Say bye" {
		t.Errorf("question %q, want %q", got, "Say bye")
	}
	var rubrics []string
	for _, e := range named.Evaluators {
		if e.Criteria != "" { // a one-text llm-rubric is the criteria of the default prompt
			rubrics = append(rubrics, e.Criteria)
		}
	}
	// The default's first, rendered with the test's vars.
	if !slices.Equal(rubrics, []string{"mentions bye", "is short"}) {
		t.Errorf("rubrics %q, want the default's (rendered) then the test's", rubrics)
	}
	for _, tc := range []struct {
		c    *suite.Case
		want float64
	}{{named, 0.5}, {second, 0.9}} {
		if tc.c.Threshold == nil || *tc.c.Threshold != tc.want {
			t.Errorf("%s: threshold %v, want %v", tc.c.ID, tc.c.Threshold, tc.want)
		}
	}
	rubric := second.Evaluators[len(second.Evaluators)-1]
	if rubric.Target != "grader openai:grader" {
		t.Errorf("llm-rubric judge %q, want the default's grader", rubric.Target)
	}
	if !slices.ContainsFunc(s.TargetDefs, func(d suite.TargetDef) bool { return d.Name == rubric.Target && d.Provider == "openai:chat:grader" }) {
		t.Errorf("the grader is not a target definition: %+v", s.TargetDefs)
	}
	if !s.Grading.VerdictOfResults || !s.Grading.ZeroWeightPasses || !s.Grading.ScoresAsReturned || !s.Grading.NoGradersPass {
		t.Errorf("promptfoo's rules not set: %+v", s.Grading)
	}
}

// TestPromptfooUnsupported: every key or type outside the subset is one error at its line.
func TestPromptfooUnsupported(t *testing.T) {
	t.Parallel()
	head := "providers: [openai:chat:m]\nprompts: ['{{q}}']\n"
	for _, tc := range []struct {
		name, content string
		line          int
		fragment      string
	}{
		{"top key", head + "redteam: {purpose: x}\ntests:\n  - vars: {q: a}\n", 3, `"redteam"`},
		{"test key", head + "tests:\n  - vars: {q: a}\n    provider: openai:chat:x\n", 5, `test "provider"`},
		{"assertion type", head + "tests:\n  - vars: {q: a}\n    assert:\n      - type: factuality\n        value: x\n", 6, `type "factuality"`},
		{"assertion key", head + "tests:\n  - vars: {q: a}\n    assert:\n      - type: contains\n        value: a\n        metric: m\n", 8, `assertion "metric"`},
		{"provider", "providers: [http]\nprompts: ['{{q}}']\ntests:\n  - vars: {q: a}\n", 1, `provider "http"`},
		{"tests file", head + "tests: file://tests.csv\n", 3, `"tests" must be a list`},
		{"var list", head + "tests:\n  - vars: {q: [a, b]}\n", 4, `var "q" is a list`},
		{"same name", "providers: [openai:chat:m, openai:chat:m]\nprompts: ['{{q}}']\ntests:\n  - vars: {q: a}\n", 1, `a second provider named "openai:m"`},
		{"description only", head + "tests:\n  - description: x\n", 4, "needs one of vars"},
		{"similar without values", head + "tests:\n  - vars: {q: a}\n    assert:\n      - type: similar\n        value: []\n", 7, `similar "value" must hold at least one text`},
		{"similar value not text", head + "tests:\n  - vars: {q: a}\n    assert:\n      - type: not-similar\n        value:\n          - a\n          - 3\n", 9, `similar value[1] must be a non-empty text, got the number 3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadTree(t, map[string]string{"promptfooconfig.yaml": tc.content}, "promptfooconfig.yaml")
			d := suitetest.RequireDiag(t, s.Diagnostics, suite.SeverityError, tc.fragment)
			if d.Line != tc.line || d.Col == 0 || !strings.HasSuffix(d.File, "promptfooconfig.yaml") {
				t.Errorf("error at %s:%d:%d, want line %d: %s", d.File, d.Line, d.Col, tc.line, d.Message)
			}
			if len(s.Cases) != 0 {
				t.Errorf("%d cases loaded from a config with errors", len(s.Cases))
			}
		})
	}
}

// TestPromptfooNoAssertions: a test without assertions loads (it scores 1 under NoGradersPass).
func TestPromptfooNoAssertions(t *testing.T) {
	t.Parallel()
	s := suitetest.LoadTree(t, map[string]string{"promptfooconfig.yaml": "providers: [openai:chat:m]\nprompts: ['{{q}}']\ntests:\n  - vars: {q: a}\n"}, "promptfooconfig.yaml")
	c := suitetest.OnlyCase(t, s)
	if len(c.Evaluators) != 0 {
		t.Errorf("evaluators %s, want none", fmt.Sprint(c.Evaluators))
	}
}

// TestPromptfooOddShapes: configs of the wrong shapes give errors, never a panic.
func TestPromptfooOddShapes(t *testing.T) {
	t.Parallel()
	for i, content := range []string{
		"providers: {}\ntests: []\n",
		"providers: [null]\nprompts: ['x']\ntests: [null]\n",
		"providers: [{label: x}]\nprompts: ['x']\ntests:\n  - assert: [hello, 3, null]\n",
		"providers: [openai:chat:m]\ndefaultTest: [1]\nprompts: ['x']\ntests:\n  - vars: {}\n",
		"providers: [openai:chat:m]\ndefaultTest: {options: {provider: null}}\nprompts: ['x']\ntests:\n  - vars: {}\n",
		"providers: [openai:chat:m]\nprompts: ['x']\ntests:\n  - options: [1]\n    assert: [{type: assert-set, assert: [{type: not-foo}]}]\n",
		"providers: [{id: openai:chat:m, config: [1]}]\nprompts: ['x']\ntests:\n  - vars: {}\n",
		"providers: [openai:chat:m]\nprompts: ['x']\ntests:\n  - assert: [{type: llm-rubric, provider: {text: 3}}]\n",
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadTree(t, map[string]string{"promptfooconfig.yaml": content}, "promptfooconfig.yaml")
			if !suite.HasErrors(s.Diagnostics) {
				t.Errorf("no error for:\n%s", content)
			}
		})
	}
}

// TestPromptfooNotRubric: a not-llm-rubric keeps its text as the criteria, its threshold in
// the grader's config and its grader, and is negated (promptfoo: handleLlmRubric's inverse).
func TestPromptfooNotRubric(t *testing.T) {
	t.Parallel()
	s := suitetest.LoadTree(t, map[string]string{"promptfooconfig.yaml": `providers: [openai:chat:m]
prompts: ["{{q}}"]
defaultTest:
  options: {provider: openai:chat:grader}
tests:
  - vars: {q: hi}
    assert:
      - type: not-llm-rubric
        value: mentions a dog
        threshold: 0.5
      - type: llm-rubric
        value: mentions a fox
`}, "promptfooconfig.yaml")
	if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
		t.Fatalf("errors:\n%s", suitetest.FormatDiags(s.Diagnostics))
	}
	es := s.Cases[0].Evaluators
	if len(es) != 2 {
		t.Fatalf("got %d graders, want 2", len(es))
	}
	for i, tc := range []struct {
		criteria, negate string
	}{{"mentions a dog", `true`}, {"mentions a fox", ""}} {
		e := es[i]
		var settings map[string]json.RawMessage
		_ = json.Unmarshal(e.Settings, &settings)
		if e.Criteria != tc.criteria || string(settings["negate"]) != tc.negate || e.Target != "grader openai:grader" || e.Type != suite.TypeLLMJudge {
			t.Errorf("grader %d: criteria %q negate %s target %q type %s; want %q %q", i, e.Criteria, settings["negate"], e.Target, e.Type, tc.criteria, tc.negate)
		}
	}
	if !strings.Contains(string(es[0].Config), `"threshold":0.5`) {
		t.Errorf("config %s, want the threshold", es[0].Config)
	}
}
