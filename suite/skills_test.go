package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// caseSummary is what an Agent Skills eval becomes, in a comparable form.
type caseSummary struct {
	ID, Question, Outcome, Reference string
	Expected                         int
	Graders                          []string // name=criteria
	Files                            []string // relative to the root
}

func summarize(root string, c *Case) caseSummary {
	s := caseSummary{ID: c.ID, Question: c.Question, Outcome: c.ExpectedOutcome, Reference: c.ReferenceAnswer, Expected: len(c.Expected)}
	for _, e := range c.Evaluators {
		s.Graders = append(s.Graders, e.Name+"="+e.Criteria)
	}
	for _, f := range c.InputFiles {
		rel, _ := filepath.Rel(root, f)
		s.Files = append(s.Files, filepath.ToSlash(rel))
	}
	return s
}

func TestSkillsEvals(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"skills/greeter/notes.txt": "notes\n",
		"skills/greeter/evals.json": `{
  "skill_name": "greeter",
  "evals": [
    {"id": 1, "prompt": "Say hello", "expected_output": "A greeting", "files": ["notes.txt", "../missing.md"],
     "assertions": ["Greets the user", "  ", "Mentions Paris"]},
    {"id": 2, "prompt": "What is 2+2?", "expected_output": "4"},
    {"id": 3, "prompt": "no expected", "assertions": [], "should_trigger": false}
  ]
}
`,
	}
	root := writeTree(t, files)
	s := Load(filepath.Join(root, "skills/greeter/evals.json"), LoadOptions{Cwd: root})
	if HasErrors(s.Diagnostics) {
		t.Fatalf("errors:\n%s", formatDiags(s.Diagnostics))
	}
	if s.Dataset != "greeter" || s.Dialect != Dialect4 || s.Format != "json" {
		t.Errorf("dataset %q dialect %q format %q", s.Dataset, s.Dialect, s.Format)
	}
	var got []caseSummary
	for _, c := range s.Cases {
		got = append(got, summarize(root, c))
	}
	want := []caseSummary{
		{ID: "1", Question: "Say hello", Outcome: "A greeting", Reference: "A greeting", Expected: 1,
			Graders: []string{"assertion-1=Greets the user", "assertion-3=Mentions Paris"},
			Files:   []string{"skills/greeter/notes.txt", "skills/missing.md"}},
		{ID: "2", Question: "What is 2+2?", Outcome: "4", Reference: "4", Expected: 1},
		{ID: "3", Question: "no expected"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	warns := strings.Split(strings.TrimSpace(formatDiags(s.Diagnostics)), "\n")
	wantWarns := []string{
		`skills/greeter/evals.json:4:94: file "../missing.md" not found (looked for skills/missing.md) [warning missing-file case=1]`,
		`skills/greeter/evals.json:5:40: empty assertion string skipped [warning evaluator case=1]`,
		`skills/greeter/evals.json:7:58: "should_trigger" is not used when running evals (ignored, as AgentV 4.x does) [warning ignored-key case=3]`,
	}
	if diff := cmp.Diff(wantWarns, warns); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// Bad input is an error at the value that is wrong; the other evals still load.
func TestSkillsEvalsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		cases     int
		want      string
	}{
		{"not json", "{\n  \"evals\": [\n    {\"id\": 1,}\n  ]\n}\n", 0, `evals.json:3:14: invalid JSON: invalid character '}' looking for beginning of object key string [error syntax]`},
		{"no evals", `{"skill_name": "x"}`, 0, `evals.json:1:1: an Agent Skills evals file needs an "evals" list [error structure]`},
		{"empty evals", `{"evals": []}`, 0, `evals.json:1:11: the "evals" list is empty [error structure]`},
		{"evals not a list", `{"evals": {"id": 1}}`, 0, `evals.json:1:11: "evals" must be a list of evals, got a mapping [error structure]`},
		{"top-level list", `[{"id": 1, "prompt": "x"}]`, 0, `evals.json:1:1: an Agent Skills evals file must be a JSON object with an "evals" list, got a list [error structure]`},
		{"blank prompt", `{"evals": [{"id": 1, "prompt": "  "}, {"id": 2, "prompt": "ok"}]}`, 1,
			`evals.json:1:32: eval needs a "prompt": the task given to the agent, a non-empty string (case "1" not loaded) [error case case=1]`},
		{"no id", `{"evals": [{"prompt": "hi"}]}`, 0, `evals.json:1:12: eval needs an "id" (a number) (case not loaded) [error case]`},
		{"assertion not a string", `{"evals": [{"id": 7, "prompt": "hi", "assertions": ["ok", {"type": "contains"}]}]}`, 0,
			`evals.json:1:59: "assertions" items must be strings, got a mapping (case "7" not loaded) [error case case=7]`},
		{"expected_output not a string", `{"evals": [{"id": 1, "prompt": "hi", "expected_output": ["a"]}]}`, 0,
			`evals.json:1:57: "expected_output" must be a string, got a list (case "1" not loaded) [error case case=1]`},
		{"unknown key", `{"evals": [{"id": 1, "prompt": "hi", "expected": "x"}], "skil_name": "s"}`, 1,
			`evals.json:1:57: unknown key "skil_name" at the top level (ignored); did you mean "skill_name"? [warning unknown-key]`},
		{"duplicate ids", `{"evals": [{"id": 1, "prompt": "a"}, {"id": 1.0, "prompt": "b"}]}`, 1, `duplicate`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, map[string]string{"evals.json": tt.src})
			s := Load(filepath.Join(root, "evals.json"), LoadOptions{Cwd: root})
			if len(s.Cases) != tt.cases {
				t.Errorf("%d cases loaded, want %d", len(s.Cases), tt.cases)
			}
			all := formatDiags(s.Diagnostics)
			if !strings.Contains(all, tt.want) {
				t.Errorf("diagnostics lack %q:\n%s", tt.want, all)
			}
		})
	}
}
