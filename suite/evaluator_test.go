package suite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v4"
)

// evalView is a compact, comparable rendering of an evaluator spec.
type evalView struct {
	Name, Type string
	Weight     float64
	Config     string
}

func viewEvaluators(specs []*EvaluatorSpec) []evalView {
	var out []evalView
	for _, s := range specs {
		out = append(out, evalView{Name: s.Name, Type: s.Type, Weight: s.Weight, Config: string(s.Config)})
	}
	return out
}

func TestEvaluatorParsing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string // the whole file
		want []evalView
	}{
		{"none means default judge", "evalcases: [{id: c, input: hi}]", nil},
		{"default names suffixed when repeated",
			"evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: llm_judge}\n      - {type: llm_judge, name: llm_judge-2}\n      - {type: llm_judge}\n      - {type: code, script: x}",
			[]evalView{{"llm_judge", "llm_judge", 1, ""}, {"llm_judge-2", "llm_judge", 1, ""}, {"llm_judge-3", "llm_judge", 1, ""}, {"code_judge", "code_judge", 1, ""}}},
		{"weight", "evalcases:\n  - {id: c, input: hi, evaluators: [{type: llm_judge, weight: 0}, {type: latency, threshold: 5, weight: 2.5}]}",
			[]evalView{{"llm_judge", "llm_judge", 0, ""}, {"latency", "latency", 2.5, ""}}},
		{"config pass-through then explicit config wins in place",
			"evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: llm_judge, rubric: r1, promptPath: null, level: 1, config: {extra: true, rubric: r2}}",
			[]evalView{{"llm_judge", "llm_judge", 1, `{"rubric":"r2","level":1,"extra":true}`}}},
		{"empty explicit config", "evalcases:\n  - {id: c, input: hi, evaluators: [{type: code_judge, script: x, config: {}}]}",
			[]evalView{{"code_judge", "code_judge", 1, `{}`}}},
		{"suite execution.evaluators inherited",
			"execution:\n  evaluators: [{type: llm_judge, name: suite}]\nevalcases: [{id: c, input: hi}]",
			[]evalView{{"suite", "llm_judge", 1, ""}}},
		{"root evaluators inherited", "evaluators: [{type: llm_judge, name: root}]\nevalcases: [{id: c, input: hi}]",
			[]evalView{{"root", "llm_judge", 1, ""}}},
		{"suite evaluator map", "evaluator: {type: llm_judge, name: single}\nevalcases: [{id: c, input: hi}]",
			[]evalView{{"single", "llm_judge", 1, ""}}},
		{"suite evaluator kind llm_judge is the default", "evaluator: llm_judge\nevalcases: [{id: c, input: hi}]", nil},
		{"case evaluator kind keeps the suite list",
			"evaluators: [{type: llm_judge, name: suite}]\nevalcases: [{id: c, input: hi, evaluator: code_judge}]",
			[]evalView{{"suite", "llm_judge", 1, ""}}},
		{"case list replaces suite list",
			"evaluators: [{type: llm_judge, name: suite}]\nevalcases: [{id: c, input: hi, evaluators: [{type: llm_judge, name: own}]}]",
			[]evalView{{"own", "llm_judge", 1, ""}}},
		{"case execution.evaluators wins over case evaluators",
			"evalcases: [{id: c, input: hi, execution: {evaluators: [{type: llm_judge, name: exec}]}, evaluators: [{type: llm_judge, name: plain}]}]",
			[]evalView{{"exec", "llm_judge", 1, ""}}},
		{"case execution without evaluators inherits",
			"evaluators: [{type: llm_judge, name: suite}]\nevalcases: [{id: c, input: hi, execution: {target: t}}]",
			[]evalView{{"suite", "llm_judge", 1, ""}}},
		{"empty case list runs the default judge", "evaluators: [{type: llm_judge, name: suite}]\nevalcases: [{id: c, input: hi, evaluators: []}]", nil},
		{"inline rubrics prepended to inherited list",
			"evaluators: [{type: llm_judge, name: rubric}]\nevalcases: [{id: c, input: hi, rubrics: [Is polite]}]",
			[]evalView{{"rubric-2", "llm_judge", 1, ""}, {"rubric", "llm_judge", 1, ""}}},
		{"AgentV 2.x types accepted",
			"evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: rubric, rubrics: [a]}\n      - {type: tool_trajectory, mode: any_order, minimums: {Read: 1}}\n      - {type: field_accuracy, fields: [{path: a, match: exact}]}\n      - {type: cost, budget: 0.1}\n      - {type: token_usage, max_total: 10}",
			[]evalView{{"rubric", "rubric", 1, ""}, {"tool_trajectory", "tool_trajectory", 1, ""}, {"field_accuracy", "field_accuracy", 1, ""}, {"cost", "cost", 1, ""}, {"token_usage", "token_usage", 1, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := onlyCase(t, loadYAMLString(t, tt.yaml))
			if diff := cmp.Diff(tt.want, viewEvaluators(c.Evaluators)); diff != "" {
				t.Errorf("evaluators (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluatorSettingsVerbatim(t *testing.T) {
	t.Parallel()
	c := onlyCase(t, loadYAMLString(t, "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: field_accuracy\n        fields: [{path: riskLevel, match: exact}]\n        aggregation: all_or_nothing\n"))
	want := `{"type":"field_accuracy","fields":[{"path":"riskLevel","match":"exact"}],"aggregation":"all_or_nothing"}`
	if got := string(c.Evaluators[0].Settings); got != want {
		t.Errorf("Settings = %s, want %s", got, want)
	}
	if c.Evaluators[0].Pos.Line != 5 || c.Evaluators[0].Pos.File != "eval.yaml" {
		t.Errorf("Pos = %+v", c.Evaluators[0].Pos)
	}
}

func TestRubricEvaluator(t *testing.T) {
	t.Parallel()
	c := onlyCase(t, loadYAMLString(t, "evalcases:\n  - id: c\n    input: hi\n    rubrics:\n      - Is polite\n      - {id: r2, expected_outcome: Cites a source, weight: 2}\n"))
	if len(c.Evaluators) != 1 {
		t.Fatalf("evaluators: %v", viewEvaluators(c.Evaluators))
	}
	r := c.Evaluators[0]
	want := `{"rubrics":["Is polite",{"id":"r2","expected_outcome":"Cites a source","weight":2}]}`
	if r.Name != "rubric" || r.Type != TypeLLMJudge || string(r.Settings) != want || r.Pos.Line != 4 {
		t.Errorf("rubric evaluator %+v settings %s", r, r.Settings)
	}
}

func TestCodeJudge(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"evals/judges/.keep": "",
		"evals/eval.yaml": "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n" +
			"      - {type: code_judge, script: [python3, judge.py]}\n" +
			"      - {type: code, script: \"python3 judge.py | tee log\", cwd: judges, threshold: 0.5, target: {max_calls: 3}}\n",
	})
	c := onlyCase(t, Load(filepath.Join(root, "evals/eval.yaml"), LoadOptions{Cwd: root}))
	a, b := c.Evaluators[0], c.Evaluators[1]
	if diff := cmp.Diff([]string{"python3", "judge.py"}, a.Script); diff != "" {
		t.Errorf("argv script (-want +got):\n%s", diff)
	}
	if a.Cwd != filepath.Join(root, "evals") {
		t.Errorf("default cwd = %q", a.Cwd)
	}
	if diff := cmp.Diff([]string{"sh", "-c", "python3 judge.py | tee log"}, b.Script); diff != "" {
		t.Errorf("string script (-want +got):\n%s", diff)
	}
	if b.Cwd != filepath.Join(root, "evals/judges") || b.Type != TypeCodeJudge || b.Name != "code_judge-2" {
		t.Errorf("cwd %q type %q name %q", b.Cwd, b.Type, b.Name)
	}
	if string(b.Config) != `{"threshold":0.5}` {
		t.Errorf("config = %s (target is a code_judge setting, not config)", b.Config)
	}
}

func TestCodeJudgeTargetProxy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		target  string
		want    *TargetProxy
		wantErr string
	}{
		{"absent", "null", nil, ""},
		{"true allows the default", "true", &TargetProxy{MaxCalls: DefaultMaxCalls}, ""},
		{"false", "false", nil, ""},
		{"max_calls", "{max_calls: 3}", &TargetProxy{MaxCalls: 3}, ""},
		{"zero calls", "{max_calls: 0}", &TargetProxy{MaxCalls: 0}, ""},
		{"camelCase", "{maxCalls: 2}", &TargetProxy{MaxCalls: 2}, ""},
		{"empty mapping", "{}", &TargetProxy{MaxCalls: DefaultMaxCalls}, ""},
		{"negative", "{max_calls: -1}", nil, `code_judge target "max_calls" must be a whole number >= 0, got "-1"`},
		{"fraction", "{max_calls: 1.5}", nil, `must be a whole number >= 0, got "1.5"`},
		{"unknown key", "{max_call: 3}", nil, `unknown setting "max_call"`},
		{"a target name", "judge", nil, `code_judge "target": want true, false or {max_calls: <number of calls>}, got "judge"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadYAMLString(t, "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: code_judge, script: [x], target: "+tt.target+"}\n")
			if tt.wantErr != "" {
				if got := formatDiags(s.Diagnostics); !strings.Contains(got, tt.wantErr) || !HasErrors(s.Diagnostics) {
					t.Errorf("diagnostics:\n%s\nwant an error containing %q", got, tt.wantErr)
				}
				return
			}
			c := onlyCase(t, s)
			if diff := cmp.Diff(tt.want, c.Evaluators[0].TargetProxy); diff != "" {
				t.Errorf("target proxy (-want +got):\n%s", diff)
			}
			if c.Evaluators[0].Config != nil {
				t.Errorf("config %s: target is a code_judge setting", c.Evaluators[0].Config)
			}
		})
	}
}

func TestSuiteEvaluatorsShared(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "execution:\n  evaluators: [{type: code_judge, script: [x]}]\nevalcases:\n  - {id: a, input: hi}\n  - {id: b, input: hi}\n  - {id: c, input: hi, rubrics: [r]}\n")
	if len(s.Cases) != 3 {
		t.Fatalf("%s", formatDiags(s.Diagnostics))
	}
	if s.Cases[0].Evaluators[0] != s.Evaluators[0] || s.Cases[1].Evaluators[0] != s.Evaluators[0] || s.Cases[2].Evaluators[1] != s.Evaluators[0] {
		t.Errorf("inherited evaluator specs must be shared pointers")
	}
	if &s.Cases[0].Evaluators[0] != &s.Cases[1].Evaluators[0] {
		t.Errorf("inherited evaluator lists must share their backing array")
	}
}

func TestAliasedEvaluatorListsShared(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "evalcases:\n  - id: a\n    input: hi\n    evaluators: &evs [{type: llm_judge, prompt: \"{{ question }}\"}]\n  - id: b\n    input: hi\n    evaluators: *evs\n")
	if len(s.Cases) != 2 || s.Cases[0].Evaluators[0] != s.Cases[1].Evaluators[0] {
		t.Fatalf("aliased lists must be parsed once and shared")
	}
	if n := len(diagMessages(s.Diagnostics, SeverityWarning)); n != 1 {
		t.Errorf("the template warning must be reported once, got %d:\n%s", n, formatDiags(s.Diagnostics))
	}
}

func TestSuiteEvaluatorErrorReportedOnce(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "evaluators: [{type: nope}]\nevalcases:\n  - {id: a, input: hi}\n  - {id: b, input: hi}\n  - {id: c, input: hi, evaluators: [{type: llm_judge}]}\n")
	if len(s.Cases) != 1 || s.Cases[0].ID != "c" {
		t.Fatalf("only the case with its own list loads, got %d", len(s.Cases))
	}
	errs := diagMessages(s.Diagnostics, SeverityError)
	if len(errs) != 1 || !strings.Contains(errs[0], `2 cases using the suite evaluators not loaded: "a", "b"`) {
		t.Errorf("errors: %q", errs)
	}
}

func TestEvaluatorErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, evaluators, want string
	}{
		{"unknown type", "[{type: llm_judgee}]", `unknown evaluator type "llm_judgee"`},
		{"missing type", "[{name: x}]", `evaluator has no "type"`},
		{"negative weight", "[{type: llm_judge, weight: -0.5}]", `"weight" must be a number >= 0`},
		{"infinite weight", "[{type: llm_judge, weight: .inf}]", `"weight" must be a number >= 0`},
		{"string weight", "[{type: llm_judge, weight: \"1\"}]", `"weight" must be a number >= 0`},
		{"code judge without script", "[{type: code_judge}]", `code_judge needs a "script"`},
		{"blank script", "[{type: code_judge, script: \" \"}]", `"script" must not be empty`},
		{"config not a mapping", "[{type: llm_judge, config: x}]", `"config" must be a mapping`},
		{"composite member", "[{type: composite, evaluators: [{type: bad}]}]", `unknown evaluator type "bad"`},
		{"not a list", "llm_judge", `"evaluators" must be a list of evaluators`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadYAMLString(t, "evalcases:\n  - {id: c, input: hi, evaluators: "+tt.evaluators+"}\n  - {id: ok, input: hi}\n")
			d := requireDiag(t, s.Diagnostics, SeverityError, tt.want, `(case "c" not loaded)`)
			if d.CaseID != "c" || d.Kind != KindEvaluator || d.Line != 2 {
				t.Errorf("diagnostic %+v", d)
			}
			if len(s.Cases) != 1 || s.Cases[0].ID != "ok" {
				t.Errorf("the other case must still load")
			}
		})
	}
}

func TestCompositeMembers(t *testing.T) {
	t.Parallel()
	c := onlyCase(t, loadYAMLString(t, "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: composite\n        aggregator: {type: weighted_average}\n        evaluators:\n          - {type: llm_judge}\n          - {type: llm_judge, prompt: \"{{ candidate_answer }}\"}\n"))
	comp := c.Evaluators[0]
	if diff := cmp.Diff([]evalView{{"llm_judge", "llm_judge", 1, ""}, {"llm_judge-2", "llm_judge", 1, ""}}, viewEvaluators(comp.Members)); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if comp.Members[1].Prompt == nil || comp.Members[1].Prompt.Kind != PromptInline {
		t.Errorf("member prompt not parsed")
	}
}

func TestJudgeTargetOverride(t *testing.T) {
	t.Parallel()
	c := onlyCase(t, loadYAMLString(t, "evalcases:\n  - {id: c, input: hi, evaluators: [{type: llm_judge, target: big_model}]}\n"))
	if c.Evaluators[0].Target != "big_model" || c.Evaluators[0].Config != nil {
		t.Errorf("target %q config %s", c.Evaluators[0].Target, c.Evaluators[0].Config)
	}
}

// TestParseSettingsPositions checks where a type's setting problems are reported: at the
// setting a path names, at the deepest part of it that exists, or at the entry.
func TestParseSettingsPositions(t *testing.T) {
	t.Parallel()
	var doc yaml.Node
	src := "type: probe\na:\n  b:\n    - x\n    - {c: 1, d: [[7, 8]]}\nlist: [1, 2]\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"nested key", &SettingError{"a.b[1].c", "bad"}, []string{"5:11 probe a.b[1].c: bad"}},
		{"nested indexes", &SettingError{"a.b[1].d[0][1]", "bad"}, []string{"5:22 probe a.b[1].d[0][1]: bad"}},
		{"missing key stops at its parent", &SettingError{"a.nope", "bad"}, []string{"3:3 probe a.nope: bad"}},
		{"index out of range", &SettingError{"list[5]", "bad"}, []string{"6:7 probe list[5]: bad"}},
		{"key into a list", &SettingError{"list.x", "bad"}, []string{"6:7 probe list.x: bad"}},
		{"entry", &SettingError{"", "whole entry"}, []string{"1:1 whole entry"}},
		{"plain error", errors.New("plain"), []string{"1:1 plain"}},
		{"joined", errors.Join(&SettingError{"a.b[0]", "one"}, errors.New("two")), []string{"4:7 probe a.b[0]: one", "1:1 two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			typ := &EvaluatorType{Name: "probe", Parse: func(*EvaluatorSpec) (any, error) { return nil, tt.err }}
			parseSettings(typ, &EvaluatorSpec{}, root, func(n *yaml.Node, msg string) {
				got = append(got, fmt.Sprintf("%d:%d %s", n.Line, n.Column, msg))
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
		})
	}
	spec := &EvaluatorSpec{}
	panicky := &EvaluatorType{Name: "probe", Parse: func(*EvaluatorSpec) (any, error) { panic("boom") }}
	var msgs []string
	parseSettings(panicky, spec, root, func(_ *yaml.Node, msg string) { msgs = append(msgs, msg) })
	if len(msgs) != 1 || !strings.Contains(msgs[0], "internal error") || spec.Parsed != nil {
		t.Errorf("a panicking parse: reports %q, parsed %v", msgs, spec.Parsed)
	}
}
