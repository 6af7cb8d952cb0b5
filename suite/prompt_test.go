package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPromptKinds(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"evals/prompts/judge.md":  "Grade {{ candidate_answer }}\r\n",
		"evals/prompts/judge.txt": "Compare {{ expected_messages }}",
		"evals/prompts/judge.ts":  "export default 1",
		"evals/prompts/judge.mjs": "export default 1",
		"evals/prompts/judge.py":  "print('x')",
		"shared/root.md":          "Root {{ candidate_answer }}",
	}
	tests := []struct {
		name     string
		prompt   string // YAML value of the evaluator's prompt key(s), e.g. "prompt: x"
		kind     PromptKind
		text     string
		path     string // relative to the root
		script   []string
		config   string
		errorHas string
	}{
		{"inline", `prompt: "Is {{ candidate_answer }} right?"`, PromptInline, "Is {{ candidate_answer }} right?", "", nil, "", ""},
		{"multi-line inline", "prompt: |\n  Grade {{ candidate_answer }}\n  carefully.md", PromptInline, "Grade {{ candidate_answer }}\ncarefully.md\n", "", nil, "", ""},
		{"prose ending in .md is inline", `prompt: "Score {{ candidate_answer }} against README.md"`, PromptInline, "Score {{ candidate_answer }} against README.md", "", nil, "", ""},
		{"markdown file", "prompt: prompts/judge.md", PromptFile, "Grade {{ candidate_answer }}\n", "evals/prompts/judge.md", nil, "", ""},
		{"txt file via promptPath", "promptPath: ./prompts/judge.txt", PromptFile, "Compare {{ expected_messages }}", "evals/prompts/judge.txt", nil, "", ""},
		{"prompt_path", "prompt_path: prompts/judge.txt", PromptFile, "Compare {{ expected_messages }}", "evals/prompts/judge.txt", nil, "", ""},
		{"file found at the repo root", "prompt: shared/root.md", PromptFile, "Root {{ candidate_answer }}", "shared/root.md", nil, "", ""},
		{"ts file is executable", "prompt: ./prompts/judge.ts", PromptScript, "", "evals/prompts/judge.ts", nil, "", ""},
		{"mjs file is executable", "prompt: prompts/judge.mjs", PromptScript, "", "evals/prompts/judge.mjs", nil, "", ""},
		{"py file is executable", "prompt: prompts/judge.py", PromptScript, "", "evals/prompts/judge.py", nil, "", ""},
		{"explicit script form", "prompt:\n  script: [bun, run, prompts/judge.ts]\n  config: {rubric: strict, n: 2}", PromptScript, "",
			"evals/prompts/judge.ts", []string{"bun", "run", "ROOT/evals/prompts/judge.ts"}, `{"rubric":"strict","n":2}`, ""},
		{"explicit script with unresolvable last element", "prompt: {script: [python3, -c, \"print(1)\"]}", PromptScript, "", "",
			[]string{"python3", "-c", "print(1)"}, "", ""},
		{"path-like but missing", "prompt: prompts/absent.md", 0, "", "", nil, "", `prompt file "prompts/absent.md" not found (tried: evals/prompts/absent.md, prompts/absent.md)`},
		{"missing ts", "prompt: ./nowhere.ts", 0, "", "", nil, "", `prompt file "./nowhere.ts" not found`},
		{"promptPath always a path", "promptPath: some-template", 0, "", "", nil, "", `prompt file "some-template" not found`},
		{"script mapping without script", "prompt: {config: {a: 1}}", 0, "", "", nil, "", `prompt mapping needs a "script"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := map[string]string{"evals/eval.yaml": "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: llm_judge\n" + indent(tt.prompt, "        ")}
			for k, v := range files {
				fs[k] = v
			}
			root := writeTree(t, fs)
			s := Load(filepath.Join(root, "evals/eval.yaml"), LoadOptions{Cwd: root})
			if tt.errorHas != "" {
				d := requireDiag(t, s.Diagnostics, SeverityError, tt.errorHas)
				if d.Line != 6 || d.CaseID != "c" || len(s.Cases) != 0 {
					t.Errorf("diagnostic %+v, cases %d", d, len(s.Cases))
				}
				return
			}
			c := onlyCase(t, s)
			p := c.Evaluators[0].Prompt
			if p == nil {
				t.Fatal("no prompt")
			}
			path := ""
			if p.Path != "" {
				rel, _ := filepath.Rel(root, p.Path)
				path = filepath.ToSlash(rel)
			}
			var script []string
			for _, a := range p.Script {
				script = append(script, strings.ReplaceAll(a, root, "ROOT"))
			}
			got := struct {
				Kind         PromptKind
				Text, Path   string
				Script       []string
				Config       string
				DisplayEmpty bool
			}{p.Kind, p.Text, path, script, string(p.Config), p.Display == ""}
			want := got
			want.Kind, want.Text, want.Path, want.Script, want.Config, want.DisplayEmpty = tt.kind, tt.text, tt.path, tt.script, tt.config, false
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("prompt (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLooksLikePath(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"judge.md": true, "./a/b.TXT": true, "x.mts": true, "x.cjs": true, "grader.py": true,
		"judge.md is here": false, "Grade it": false, "": false, "notes.mdx": false, "a.json": false,
	} {
		if got := looksLikePath(v); got != want {
			t.Errorf("looksLikePath(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestTemplateValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		template string
		wantMsgs []string // fragments of each expected warning, in order
		pos      [][2]int // line:col in the template file
	}{
		{"candidate_answer present", "Grade {{ candidate_answer }}", nil, nil},
		{"expected_messages present", "Compare {{expected_messages}}", nil, nil},
		{"new name actual_output", "Grade {{ actual_output }}", nil, nil},
		{"new name expected_output", "Compare {{ expected_output }}", nil, nil},
		{"question only", "{{ question }}", []string{
			"Custom evaluator template at prompts/t.md is missing required fields: include {{ candidate_answer }} or {{ expected_messages }}",
		}, [][2]int{{1, 1}}},
		{"unknown variables listed with valid ones", "Intro\n\n  {{ candiate_answer }} for {{invalid_var}} and {{ candiate_answer }} {{ candidate_answer }}", []string{
			"uses unknown variables {{ candiate_answer }}, {{ invalid_var }} (left as written); valid variables: {{ candidate_answer }}, {{ expected_messages }}, {{ question }}, {{ expected_outcome }}, {{ reference_answer }}, {{ input_messages }}, {{ output_messages }}, {{ actual_output }}, {{ expected_output }}, {{ input }}",
		}, [][2]int{{3, 3}}},
		{"both problems", "é {{ nope }}", []string{"is missing required fields", "uses unknown variables {{ nope }}"}, [][2]int{{1, 1}, {1, 3}}},
		{"empty template", "", []string{"is missing required fields"}, [][2]int{{1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadTree(t, map[string]string{
				"prompts/t.md": tt.template,
				"eval.yaml":    "evalcases:\n  - id: c1\n    input: hi\n    evaluators: [{type: llm_judge, prompt: prompts/t.md}]\n  - id: c2\n    input: hi\n    evaluators: [{type: llm_judge, prompt: prompts/t.md}]\n",
			}, "eval.yaml")
			if len(s.Cases) != 2 {
				t.Fatalf("validation is permissive: every case loads, got %d\n%s", len(s.Cases), formatDiags(s.Diagnostics))
			}
			if len(s.Diagnostics) != len(tt.wantMsgs) {
				t.Fatalf("got %d diagnostics, want %d (each once per file):\n%s", len(s.Diagnostics), len(tt.wantMsgs), formatDiags(s.Diagnostics))
			}
			for i, d := range s.Diagnostics {
				if !strings.Contains(d.Message, tt.wantMsgs[i]) || d.Severity != SeverityWarning || d.Kind != KindTemplate ||
					d.File != "prompts/t.md" || d.CaseID != "c1" || d.Line != tt.pos[i][0] || d.Col != tt.pos[i][1] {
					t.Errorf("diagnostic %d = %s [%v %s case=%s], want %q at %v", i, d.Error(), d.Severity, d.Kind, d.CaseID, tt.wantMsgs[i], tt.pos[i])
				}
				if strings.Contains(tt.wantMsgs[i], "missing") && !strings.Contains(d.Message, "Without these, there is nothing to evaluate against") {
					t.Errorf("missing-fields warning must explain why: %s", d.Message)
				}
			}
		})
	}
}

func TestInlineTemplatePositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, evaluator string
		line, col       int
	}{
		{"plain", "      - type: llm_judge\n        prompt: Grade {{ candidate_answer }} {{ x }}", 6, 46},
		{"double quoted", "      - type: llm_judge\n        prompt: \"Grade {{ candidate_answer }} {{ x }}\"", 6, 47},
		{"literal block", "      - type: llm_judge\n        prompt: |\n          Grade {{ candidate_answer }}\n            then {{ x }}", 8, 18},
		{"folded block points at the scalar", "      - type: llm_judge\n        prompt: >\n          Grade {{ candidate_answer }}\n          then {{ x }}", 6, 17},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loadYAMLString(t, "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n"+tt.evaluator+"\n")
			onlyCase(t, s)
			d := requireDiag(t, s.Diagnostics, SeverityWarning, "uses unknown variables {{ x }}", "eval.yaml:")
			if d.File != "eval.yaml" || d.Line != tt.line || d.Col != tt.col || d.CaseID != "c" {
				t.Errorf("at %s:%d:%d case %q, want %d:%d", d.File, d.Line, d.Col, d.CaseID, tt.line, tt.col)
			}
		})
	}
}

func TestInlineMissingFieldsAtPromptKey(t *testing.T) {
	t.Parallel()
	s := loadYAMLString(t, "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - name: j\n        type: llm_judge\n        prompt: \"{{ question }}\"\n")
	onlyCase(t, s)
	d := requireDiag(t, s.Diagnostics, SeverityWarning, `Custom evaluator template at eval.yaml:7 (inline prompt of evaluator "j") is missing required fields`)
	if d.Line != 7 || d.Col != 9 || d.Kind != KindTemplate {
		t.Errorf("diagnostic %+v", d)
	}
}
