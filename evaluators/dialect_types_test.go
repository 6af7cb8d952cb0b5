package evaluators

import (
	"strings"
	"testing"

	"github.com/agentv/action/suite"
)

// TestV5TypesOnlyInV5Files: the types new in AgentV 5.x are unknown in 2.5 and 4.x files (as
// to 2.5 and 4.42.4), are left out of those files' list of valid types and are never
// suggested for their misspellings; a 5.x file loads them.
func TestV5TypesOnlyInV5Files(t *testing.T) {
	t.Parallel()
	v25 := func(typ string) string {
		return "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: " + typ + ", value: x}\n"
	}
	v4 := func(typ string) string {
		return "tests:\n  - id: c\n    input: hi\n    assertions:\n      - {type: " + typ + ", value: x}\n"
	}
	tests := []struct {
		name, text string
		want       string // the start of the only error, "" for none
		notIn      string // text the error must not hold
	}{
		{"2.5 javascript", v25("javascript"), `eval.yaml:5:16: unknown evaluator type "javascript" (valid: `, "javascript"},
		{"2.5 assert-set", v25("assert-set"), `eval.yaml:5:16: unknown evaluator type "assert-set" (valid: `, "assert-set"},
		{"2.5 webhook misspelled", v25("webhok"), `eval.yaml:5:16: unknown evaluator type "webhok" (valid: `, "webhook"},
		{"4.x python", v4("python"), `eval.yaml:5:16: unknown evaluator type "python": not a built-in type, and no custom assertion script python.ts`, ""},
		{"4.x similar", v4("similar"), `eval.yaml:5:16: unknown evaluator type "similar": not a built-in type`, ""},
		{"4.x skill-used misspelled", v4("skill-usd"), `eval.yaml:5:16: unknown evaluator type "skill-usd": not a built-in type`, `"skill-used"`},
		{"4.x trajectory", v4("trajectory:tool-used"), `eval.yaml:5:16: unknown evaluator type "trajectory:tool-used": not a built-in type`, ""},
		{"4.x goal-success", v4("trajectory:goal-success"), `eval.yaml:5:16: unknown evaluator type "trajectory:goal-success": not a built-in type`, ""},
		{"2.5 not-trajectory step-count", v25("not-trajectory:step-count"), `eval.yaml:5:16: unknown evaluator type "not-trajectory:step-count" (valid: `, "trajectory:"},
		{"4.x built-in still known", v4("contains"), "", ""},
		{"5.x python", "prompts: [hi]\ntests:\n  - id: c\n    assert:\n      - {type: python, value: 'True'}\n", "", ""},
		{"2.5 contains-json", v25("contains-json"), `eval.yaml:5:16: unknown evaluator type "contains-json" (valid: `, "contains-json"},
		{"4.x contains-json", v4("contains-json"), `eval.yaml:5:16: unknown evaluator type "contains-json": not a built-in type`, ""},
		// AgentV 5.x refuses it too; promptfoo configs have it (TestPromptfooContainsJSON).
		{"5.x contains-jsn not suggested", "prompts: [hi]\ntests:\n  - id: c\n    assert:\n      - {type: contains-jsn}\n",
			`eval.yaml:5:16: AgentV 5.x assertion type "contains-jsn" is not supported yet`, "contains-json"},
		{"5.x contains-json", "prompts: [hi]\ntests:\n  - id: c\n    assert:\n      - {type: contains-json}\n",
			`eval.yaml:5:16: promptfoo assertion type "contains-json" is not supported by AgentV 5.x`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := suite.Load(writeFile(t, dir, "eval.yaml", tt.text), suite.LoadOptions{Cwd: dir})
			var errs []string
			for _, d := range s.Diagnostics {
				if d.IsError() {
					errs = append(errs, d.Error())
				}
			}
			if tt.want == "" {
				if len(errs) != 0 || len(s.Cases) != 1 {
					t.Fatalf("errors %q, %d cases; want none and 1 case", errs, len(s.Cases))
				}
				return
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) || len(s.Cases) != 0 {
				t.Fatalf("errors %q, %d cases; want one starting %q", errs, len(s.Cases), tt.want)
			}
			if tt.notIn != "" && strings.Contains(strings.TrimPrefix(errs[0], tt.want), tt.notIn) {
				t.Errorf("error %q names %q", errs[0], tt.notIn)
			}
		})
	}
}

// TestPromptfooContainsJSON: a promptfoo config reads contains-json and JSON-schema values of
// is-json and contains-json; a value that is no schema is a positioned error.
func TestPromptfooContainsJSON(t *testing.T) {
	t.Parallel()
	head := "providers: ['exec:echo']\nprompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n"
	tests := []struct {
		name, asserts, want string
	}{
		{"contains-json and schemas", "      - {type: contains-json}\n      - {type: not-contains-json, value: {type: object}}\n" +
			"      - {type: is-json, value: 'required: [a]'}\n", ""},
		{"contains-json bad schema", "      - {type: contains-json, value: {type: 5}}\n", "promptfooconfig.yaml:6:38: contains-json value: "},
		{"contains-json list value", "      - {type: contains-json, value: [a]}\n", "promptfooconfig.yaml:6:38: contains-json value: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := suite.Load(writeFile(t, dir, "promptfooconfig.yaml", head+tt.asserts), suite.LoadOptions{Cwd: dir})
			var errs []string
			for _, d := range s.Diagnostics {
				if d.IsError() {
					errs = append(errs, d.Error())
				}
			}
			if tt.want == "" {
				if len(errs) != 0 || len(s.Cases) != 1 || !s.Grading.JSONSchemaValue {
					t.Fatalf("errors %q, %d cases; want none and 1 case", errs, len(s.Cases))
				}
				return
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) || !strings.Contains(errs[0], "value") {
				t.Fatalf("errors %q; want one starting %q about the value", errs, tt.want)
			}
		})
	}
}

// TestPromptfooSchemaFile: a file:// JSON schema (.json or .yaml) is read from the config's
// folder as the value itself; another kind of file, or a missing one, is a positioned error.
func TestPromptfooSchemaFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "schema.json", `{"type": "object", "required": ["a"]}`)
	writeFile(t, dir, "schema.yaml", "type: object\nrequired: [b]\n")
	head := "providers: ['exec:echo']\nprompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert:\n"
	for _, tt := range []struct{ name, asserts, want string }{
		{"json and yaml", "      - {type: is-json, value: file://schema.json}\n      - {type: contains-json, value: 'file://schema.yaml'}\n", ""},
		{"missing", "      - {type: is-json, value: file://absent.json}\n", `promptfooconfig.yaml:6:32: JSON schema file "absent.json" not found`},
		{"script", "      - {type: contains-json, value: file://schema.js}\n", `promptfooconfig.yaml:6:38: contains-json "file://schema.js": a JSON schema file must be`},
	} {
		s := suite.Load(writeFile(t, dir, "promptfooconfig.yaml", head+tt.asserts), suite.LoadOptions{Cwd: dir})
		var errs []string
		for _, d := range s.Diagnostics {
			if d.IsError() {
				errs = append(errs, d.Error())
			}
		}
		if tt.want == "" {
			if len(errs) != 0 || len(s.Cases) != 1 {
				t.Fatalf("%s: errors %q, %d cases", tt.name, errs, len(s.Cases))
			}
			specs := s.Cases[0].Evaluators
			for i, want := range []string{`"required":["a"]`, `"required":["b"]`} {
				if !strings.Contains(strings.ReplaceAll(string(specs[i].Settings), " ", ""), want) {
					t.Errorf("%s: entry %d settings %s, want the file's schema", tt.name, i, specs[i].Settings)
				}
			}
			continue
		}
		if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) {
			t.Errorf("%s: errors %q, want one starting %q", tt.name, errs, tt.want)
		}
	}
}
