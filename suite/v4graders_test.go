package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// TestV4GraderSettings checks how the 4.x loader reads grader settings: the common keys and
// llm-grader's max_steps and temperature are not judge config, rubric operators and
// min_score pass to the grader, and prompts follow 4.x's file:// rule.
func TestV4GraderSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, assertion string
		wantDiag        string // substring of the diagnostics, "" for none
		check           func(t *testing.T, e *EvaluatorSpec)
	}{
		{name: "common keys are not config", assertion: "{type: llm-grader, required: 0.7, min_score: 0.6, negate: true, level: 2}",
			check: func(t *testing.T, e *EvaluatorSpec) {
				if string(e.Config) != `{"level":2}` {
					t.Errorf("config %s, want {\"level\":2}", e.Config)
				}
			}},
		{name: "code-grader config", assertion: "{type: code-grader, command: [python3, g.py], required: true, threshold: 3}",
			check: func(t *testing.T, e *EvaluatorSpec) {
				if string(e.Config) != `{"threshold":3}` {
					t.Errorf("config %s", e.Config)
				}
			}},
		{name: "max_steps and temperature", assertion: "{type: llm-grader, max_steps: 3, temperature: 0.2}",
			wantDiag: `llm-grader "max_steps" is ignored`,
			check: func(t *testing.T, e *EvaluatorSpec) {
				if e.Config != nil {
					t.Errorf("config %s, want none", e.Config)
				}
			}},
		{name: "temperature without a target", assertion: "{type: llm-grader, temperature: 0.2}",
			wantDiag: `llm-grader "temperature" is ignored without the grader's own "target" (as in AgentV 4.x)`},
		{name: "temperature with a target", assertion: "{type: llm-grader, target: j, temperature: 0.2}"},
		{name: "temperature out of range", assertion: "{type: llm-grader, target: j, temperature: 3}",
			wantDiag: `llm-grader "temperature" must be a number from 0 to 2, got "3" (ignored)`},
		{name: "operator and min_score", assertion: "{type: rubrics, criteria: [{id: a, outcome: A, operator: contradiction, min_score: 0.7}]}",
			check: func(t *testing.T, e *EvaluatorSpec) {
				if s := string(e.Settings); !strings.Contains(s, `"operator":"contradiction"`) || !strings.Contains(s, `"min_score":0.7`) || !strings.Contains(s, `"expected_outcome":"A"`) {
					t.Errorf("settings %s", s)
				}
			}},
		{name: "unknown operator", assertion: "{type: rubrics, criteria: [{id: a, outcome: A, operator: maybe}]}",
			wantDiag: `rubric "operator" must be one of correctness, contradiction, got "maybe" (ignored)`},
		{name: "llm-grader rubrics take 4.x criteria", assertion: "{type: llm-grader, rubrics: [{id: a, outcome: A}]}",
			check: func(t *testing.T, e *EvaluatorSpec) {
				if !strings.Contains(string(e.Settings), `"expected_outcome":"A"`) {
					t.Errorf("settings %s", e.Settings)
				}
			}},
		{name: "file:// prompt", assertion: "{type: llm-grader, prompt: \"file://g.md\"}",
			check: func(t *testing.T, e *EvaluatorSpec) {
				if e.Prompt == nil || e.Prompt.Kind != PromptFile || e.Prompt.Text != "Grade {{ output }}\n" {
					t.Errorf("prompt %+v", e.Prompt)
				}
			}},
		{name: "missing file:// prompt", assertion: "{type: llm-grader, prompt: \"file://nope.md\"}", wantDiag: `prompt file "nope.md" not found`},
		{name: "bare path of a file", assertion: "{type: llm-grader, prompt: g.md}", wantDiag: `prompt "g.md" is read as the file it names`,
			check: func(t *testing.T, e *EvaluatorSpec) {
				if e.Prompt == nil || e.Prompt.Kind != PromptFile {
					t.Errorf("prompt %+v", e.Prompt)
				}
			}},
		{name: "bare path of no file is criteria text", assertion: "{type: llm-grader, prompt: other.md}",
			check: func(t *testing.T, e *EvaluatorSpec) {
				if e.Prompt == nil || e.Prompt.Kind != PromptInline || e.Prompt.Text != "other.md" {
					t.Errorf("prompt %+v", e.Prompt)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "g.md"), []byte("Grade {{ output }}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.eval.yaml")
			src := "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    assertions:\n      - " + tt.assertion + "\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			s := Load(path, LoadOptions{Cwd: dir})
			diags := formatDiags(s.Diagnostics)
			if tt.wantDiag == "" && diags != "" || !strings.Contains(diags, tt.wantDiag) {
				t.Errorf("diagnostics:\n%s\nwant %q", diags, tt.wantDiag)
			}
			if tt.check == nil {
				return
			}
			if len(s.Cases) != 1 || len(s.Cases[0].Evaluators) != 1 {
				t.Fatalf("load failed:\n%s", diags)
			}
			tt.check(t, s.Cases[0].Evaluators[0])
		})
	}
}

// TestV4Name checks the names 4.x gives unnamed graders.
func TestV4Name(t *testing.T) {
	t.Parallel()
	tests := []struct{ typ, yaml, want string }{
		{"contains", `{value: "42"}`, "contains-42"},
		{"contains", `{value: 42}`, "contains"},
		{"contains", `{value: ""}`, "contains"},
		{"icontains", `{value: Hi}`, "icontains-Hi"},
		{"contains-any", `{value: [a, b, c]}`, "contains-any-3"},
		{"icontains-all", `{value: [a]}`, "icontains-all-1"},
		{"contains-all", `{value: a}`, "contains-all"},
		{"starts-with", `{value: The}`, "starts-with-The"},
		{"ends-with", `{value: "."}`, "ends-with-."},
		{"equals", `{value: x y}`, "equals-x y"},
		{"regex", `{value: "^abcdefghijklmnopqrstuvwxyz0123456789"}`, "regex-^abcdefghijklmnopqrstuvwxyz012"},
		{"is-json", `{value: x}`, "is-json"},
		{"skill-trigger", `{skill: pdf}`, "skill-trigger-pdf"},
		{"rubrics", `{criteria: [a]}`, "rubrics"},
		{"llm-grader", `{}`, "llm-grader"},
		{"code-grader", `{command: [x]}`, "code-grader"},
		{"field-accuracy", `{}`, "field-accuracy"},
	}
	for _, tt := range tests {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tt.yaml), &doc); err != nil {
			t.Fatal(err)
		}
		if got := v4Name(tt.typ, doc.Content[0]); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.typ, tt.yaml, got, tt.want)
		}
	}
}

// TestGradingRulesByDialect checks that each front-end records how its graders score, so no
// grader asks which dialect a file is in: 4.x files (YAML and JSONL) get 4.42.4's rules and
// common keys on judges, 2.5 files the zero rules and judge config; the same for agent rules.
func TestGradingRulesByDialect(t *testing.T) {
	t.Parallel()
	agent4 := AgentRules{CwdFromWorkDir: true, AbsoluteFileRefs: true, PromptAs442: true}
	tests := []struct {
		name, file, content string
		want                GradingRules
		agent               AgentRules
		judgeCommonKeys     bool
	}{
		{name: "2.5 yaml", file: "e.yaml", content: "evalcases:\n  - id: a\n    input: hi\n    evaluators: [{type: llm_judge, required: true}]\n"},
		{name: "4.x yaml", file: "e.yaml", content: "tests:\n  - id: a\n    input: hi\n    assertions: [{type: llm-grader, required: true}]\n",
			want: GradingRulesOf(Dialect4), agent: agent4, judgeCommonKeys: true},
		{name: "4.x jsonl", file: "e.jsonl", content: `{"id": "a", "input": "hi", "assertions": [{"type": "llm-grader", "required": true}]}` + "\n",
			want: GradingRulesOf(Dialect4), agent: agent4, judgeCommonKeys: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, map[string]string{tt.file: tt.content}, tt.file)
			if s.Grading != tt.want {
				t.Errorf("grading rules %+v, want %+v", s.Grading, tt.want)
			}
			if s.Agent != tt.agent {
				t.Errorf("agent rules %+v, want %+v", s.Agent, tt.agent)
			}
			c := onlyCase(t, s)
			if len(c.Evaluators) != 1 || c.Evaluators[0].JudgeCommonKeys != tt.judgeCommonKeys {
				t.Fatalf("evaluators %+v, want one with JudgeCommonKeys %v", c.Evaluators, tt.judgeCommonKeys)
			}
		})
	}
}
