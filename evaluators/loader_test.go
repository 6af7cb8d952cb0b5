package evaluators

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
)

// TestLoadedSuite runs evaluators on cases loaded by the real loader, so the seam between
// suite.EvaluatorSpec as the loader fills it and the evaluators stays honest.
func TestLoadedSuite(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	needTool(t, "node")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "judge.py", judgePy)
	writeFile(t, dir, "grader.md", "Grade {{ candidate_answer }} against {{ expected_output }}; config is not a variable.")
	writeFile(t, dir, "tmpl.js", `let s = '';
process.stdin.on('data', (c) => { s += c; });
process.stdin.on('end', () => {
  const d = JSON.parse(s);
  console.log("JS Q=" + d.question + " A=" + d.actual_output + " rubric=" + d.config.rubric);
});
`)
	writeFile(t, dir, "echo.py", "import json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({'score': 1, 'reasoning': 'rubric=' + d['config']['rubric']}))\n")
	evalPath := writeFile(t, dir, "eval.yaml", `description: seam test
evalcases:
  - id: fa-code-prompt
    expected_outcome: The assistant answers 42 as JSON.
    input_messages:
      - role: user
        content: What is six times seven?
    expected_messages:
      - role: assistant
        content: '{"answer":"42"}'
    execution:
      evaluators:
        - name: fa
          type: field_accuracy
          weight: 2
          fields:
            - path: answer
              match: exact
        - name: py
          type: code_judge
          script: ["python3", "echo.py"]
          rubric: strict
        - name: graded
          type: llm_judge
          prompt: ./grader.md
  - id: risk
    input: What is the risk level?
    expected_output:
      riskLevel: High
    expected_outcome: Correctly classify as high risk
    rubrics:
      - Says the level is High
    evaluators:
      - type: code
        script: ["python3", "judge.py"]
  - id: capital
    expected_outcome: x
    input: What is the capital of France?
    evaluator:
      type: llm_judge
      prompt: ./tmpl.js
      rubric: be strict
`)
	s := suite.Load(evalPath, suite.LoadOptions{Cwd: dir})
	for _, d := range s.Diagnostics {
		t.Logf("diagnostic: %v", d)
	}
	if len(s.Cases) != 3 {
		t.Fatalf("loaded %d cases, want 3", len(s.Cases))
	}
	answers := map[string]string{"fa-code-prompt": `{"answer":"42"} High`, "risk": "High", "capital": "Paris"}
	for _, c := range s.Cases {
		t.Run(c.ID, func(t *testing.T) {
			j := &fakeJudge{name: "judge", reply: `{"score": 1, "hits": ["fine"]}`}
			t.Parallel()
			opts := judgeOpts(j, nil)
			opts.Timeout = 30 * time.Second
			out := Evaluate(t.Context(), riskInput(c, answers[c.ID]), opts)
			for _, r := range out.Results {
				if r.Error != "" {
					t.Errorf("%s (%s): %s", r.Name, r.Type, r.Error)
				}
			}
			var names []string
			for _, r := range out.Results {
				names = append(names, r.Name+"="+r.Type)
			}
			got := strings.Join(names, ",")
			switch c.ID {
			case "fa-code-prompt":
				if got != "fa=field_accuracy,py=code_judge,graded=llm_judge" || out.Results[0].Score != 1 || out.Results[0].Weight != 2 {
					t.Errorf("evaluators %s, results %+v", got, out.Results)
				}
				if len(j.requests()) == 0 {
					t.Fatal("the judge was not called")
				}
				if q := j.requests()[0].Question; !strings.HasPrefix(q, `Grade {"answer":"42"} High against [`) {
					t.Errorf("custom prompt = %q", q)
				}
				if out.Results[1].Reasoning != "rubric=strict" {
					t.Errorf("pass-through config did not reach the judge: %q", out.Results[1].Reasoning)
				}
			case "risk":
				if got != "rubric=llm_judge,code_judge=code_judge" || out.Results[1].Score != 1 {
					t.Errorf("evaluators %s, results %+v", got, out.Results)
				}
				if q := j.requests()[0]; q.SystemPrompt != checklistSystemPrompt || !strings.Contains(q.Question, "- [rubric-1] (REQUIRED): Says the level is High") {
					t.Errorf("inline rubrics did not switch the judge to rubric mode: %+v", q)
				}
				if d := string(out.Results[1].Details); d != `{"riskLevel":"High","refIsNull":false}` {
					t.Errorf("details = %s (user keys must stay verbatim)", d)
				}
			case "capital":
				if len(j.requests()) == 0 {
					t.Fatal("the judge was not called")
				}
				if q := j.requests()[0].Question; !strings.HasPrefix(q, "JS Q=What is the capital of France? A=Paris") || !strings.Contains(q, "rubric=be strict") {
					t.Errorf("template prompt = %q", q)
				}
			}
		})
	}
}

// TestSettingsCheckedAtLoad loads entries with bad type-specific settings: each is a load
// error at the setting's position and its case is not loaded.
func TestSettingsCheckedAtLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, text string
		want             string // file:line:col: message prefix
	}{
		{"unknown match", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: field_accuracy\n        fields: [{path: a}, {path: b, match: fuzzy}]\n",
			`eval.yaml:6:46: field_accuracy fields[1].match: unknown match "fuzzy"`},
		{"bad field path", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: field_accuracy\n        fields:\n          - path: 'a[x]'\n",
			`eval.yaml:7:19: field_accuracy fields[0].path: path "a[x]": bad index`},
		{"field weight not a number", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: field_accuracy\n        fields:\n          - {path: a, weight: heavy}\n",
			`eval.yaml:7:31: field_accuracy fields[0].weight: must be a number, got a string`},
		{"no fields", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: field_accuracy\n",
			"eval.yaml:5:9: field_accuracy needs `fields: [{path, match}]`"},
		{"rubric without criteria", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: rubric, rubrics: []}\n",
			`eval.yaml:5:33: rubric rubrics: must not be empty`},
		{"rubric item without outcome", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    rubrics:\n      - {id: r1}\n",
			`eval.yaml:5:9: llm_judge rubrics[0]: rubric "r1" has no expected_outcome`},
		{"unknown mode", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - {type: tool_trajectory, mode: sometimes}\n",
			`eval.yaml:5:39: tool_trajectory mode: unknown mode "sometimes"`},
		{"negative minimum", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: tool_trajectory\n        mode: any_order\n        minimums: {Read: -1}\n",
			`eval.yaml:7:26: tool_trajectory minimums.Read: must be >= 0`},
		{"weights name no member", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: composite\n        aggregator: {weights: {llm_judge: 1, accuracy: 2}}\n        evaluators: [{type: llm_judge}]\n",
			`eval.yaml:6:56: composite aggregator.weights.accuracy: no member is named "accuracy" (members: llm_judge)`},
		{"composite weight not a number", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: composite\n        aggregator: {weights: {llm_judge: lots}}\n        evaluators: [{type: llm_judge}]\n",
			`eval.yaml:6:43: composite aggregator.weights.llm_judge: must be a number >= 0, got "lots"`},
		{"bad member settings", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: composite\n        evaluators: [{type: latency, threshold: soon}]\n",
			`eval.yaml:6:49: latency threshold: must be a number >= 0, got "soon"`},
		{"token usage without limits", "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    evaluators:\n      - type: token_usage\n",
			"eval.yaml:5:9: token_usage needs at least one of"},
		{"suite list", "eval.yaml", "evaluators:\n  - {type: cost, budget: -1}\nevalcases:\n  - id: c\n    input: hi\n",
			`eval.yaml:2:26: cost budget: must be a number >= 0, got -1`},
		{"jsonl line", "eval.jsonl", `{"id": "c", "input": "hi", "evaluators": [{"type": "field_accuracy", "fields": [{"path": "a", "match": "fuzzy"}]}]}` + "\n",
			`eval.jsonl:1:104: field_accuracy fields[0].match: unknown match "fuzzy"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := suite.Load(writeFile(t, dir, tt.file, tt.text), suite.LoadOptions{Cwd: dir})
			var errs []string
			for _, d := range s.Diagnostics {
				if d.IsError() {
					errs = append(errs, d.Error())
				}
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) || len(s.Cases) != 0 {
				t.Errorf("errors %q, %d cases; want one starting %q and no case", errs, len(s.Cases), tt.want)
			}
		})
	}
}

// TestParsedAtLoad checks that a loaded entry runs with the settings parsed at load time:
// the raw settings are not read again.
func TestParsedAtLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := suite.Load(writeFile(t, dir, "eval.yaml", "evalcases:\n  - id: c\n    input: hi\n    expected_output: {a: 1}\n    evaluators:\n      - {type: field_accuracy, fields: [{path: a}]}\n"), suite.LoadOptions{Cwd: dir})
	if len(s.Cases) != 1 || s.Cases[0].Evaluators[0].Parsed == nil {
		t.Fatalf("diagnostics %v: want one case with parsed settings", s.Diagnostics)
	}
	c := s.Cases[0]
	c.Evaluators[0].Settings = []byte(`{"fields": "garbage"}`)
	out := Evaluate(t.Context(), riskInput(c, `{"a": 1}`), &Options{})
	if r := out.Results[0]; r.Error != "" || r.Score != 1 {
		t.Errorf("result %+v: want the parsed settings used, score 1", r)
	}
}

// TestMisspelledAssertions checks that a misspelled type or key of a 4.x assertion is named
// with the nearest right spelling: a type as part of its error, a key as a warning at the
// key, or inside the error its absence caused.
func TestMisspelledAssertions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, assertion string
		sev             suite.Severity
		want            string // the whole diagnostic, file:line:col first
	}{
		{"type", "{type: contain, value: Look}", suite.SeverityError,
			`eval.yaml:6:16: unknown evaluator type "contain" (did you mean "contains"?): not a built-in type`},
		{"snake type", "{type: icontains_al, value: [a]}", suite.SeverityError,
			`eval.yaml:6:16: unknown evaluator type "icontains_al" (did you mean "icontains_all"?)`},
		{"key the type needs", "{type: contains, vaule: Look}", suite.SeverityError,
			`eval.yaml:6:9: contains needs ` + "`value`" + `: the text to compare the answer with; unknown key "vaule" (did you mean "value"?) at line 6 (case "a" not loaded)`},
		{"optional key", "{type: contains, value: Look, negat: true}", suite.SeverityWarning,
			`eval.yaml:6:39: unknown key "negat" (did you mean "negate"?) for type contains (ignored)`},
		{"regex flags", "{type: regex, value: L, flgas: i}", suite.SeverityWarning,
			`eval.yaml:6:33: unknown key "flgas" (did you mean "flags"?) for type regex (ignored)`},
		{"far from any key", "{type: is-json, colour: red}", suite.SeverityWarning,
			`eval.yaml:6:25: unknown key "colour" for type is-json (ignored)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := writeFile(t, dir, "eval.yaml", "name: s\ntests:\n  - id: a\n    input: hi\n    assertions:\n      - "+tt.assertion+"\n")
			s := suite.Load(path, suite.LoadOptions{Cwd: dir})
			var got []string
			for _, d := range s.Diagnostics {
				if d.Severity == tt.sev {
					got = append(got, d.Error())
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
				t.Errorf("got %q\nwant one starting %q", got, tt.want)
			}
		})
	}
	// Keys every entry may carry are no warning.
	dir := t.TempDir()
	path := writeFile(t, dir, "eval.yaml", "name: s\ntests:\n  - id: a\n    input: hi\n    assertions:\n      - {type: contains, value: a, name: n, id: i, weight: 2, required: true, min_score: 0.5, negate: false}\n")
	if s := suite.Load(path, suite.LoadOptions{Cwd: dir}); len(s.Diagnostics) > 0 {
		t.Errorf("diagnostics for known keys: %v", s.Diagnostics)
	}
}
