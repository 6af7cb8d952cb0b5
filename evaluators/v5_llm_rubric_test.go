package evaluators

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// loadV5Case loads a 5.x file holding one test with the assert entries (YAML at the test's
// indentation) whose answer is candidate and returns the input that grades it.
func loadV5Case(t *testing.T, assert string, candidate string) *Input {
	t.Helper()
	return loadV5File(t, "prompts: [\"{{ input }}\"]\ntests:\n  - id: t\n    vars: {input: hi}\n    assert:\n"+assert, candidate)
}

// loadV5File loads a 5.x file of one test (next to a notes.md) as loadV5Case does.
func loadV5File(t *testing.T, src, candidate string) *Input {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "notes.md", "a file the rubric text names")
	file := writeFile(t, dir, "v5.eval.yaml", src)
	s := suite.Load(file, suite.LoadOptions{Cwd: dir})
	if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
		t.Fatalf("load: %d cases, %v", len(s.Cases), s.Diagnostics)
	}
	c := s.Cases[0]
	return &Input{Case: c, Target: &targets.Target{Name: "agent"},
		Request:   &providers.Request{EvalID: c.ID, Question: "hi", Dir: filepath.Dir(file)},
		Response:  &providers.Response{Text: candidate, OutputMessages: []suite.Message{text("assistant", candidate)}},
		Candidate: candidate}
}

// TestV5LLMRubricReplies: a 5.x llm-rubric reads a promptfoo-shaped reply's pass as its
// verdict (with the entry's threshold), other replies as 4.x does.
func TestV5LLMRubricReplies(t *testing.T) {
	t.Parallel()
	plain := "      - type: llm-rubric\n        value: Is it right?\n"
	strict := plain + "        threshold: 0.95\n"
	for _, tc := range []struct {
		name, assert, reply string
		score               float64
		verdict             string
	}{
		{"pass below 0.8", plain, `{"pass": true, "score": 0.7, "reason": "ok"}`, 0.7, results.BandPass},
		{"fail above 0.8", plain, `{"pass": false, "score": 0.9, "reason": "no"}`, 0.9, results.BandFail},
		{"threshold", strict, `{"pass": true, "score": 0.9}`, 0.9, results.BandFail},
		{"pass text, no score", plain, `{"pass": "Yes"}`, 1, results.BandPass},
		{"pass number is no pass", plain, `{"pass": 1}`, 0, results.BandFail},
		{"score text", plain, `{"reason": "r", "score": "0.6"}`, 0.6, results.BandPass},
		{"checks", plain, `{"checks": [{"pass": true}, {"score": 0.5}]}`, 0.75, results.BandFail},
		{"4.x reply", plain, `{"score": 0.9, "assertions": []}`, 0.9, results.BandPass},
		{"4.x reply below 0.8", plain, `{"score": 0.7}`, 0.7, results.BandFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := loadV5Case(t, tc.assert, "an answer")
			out := Evaluate(context.Background(), in, judgeOpts(&fakeJudge{reply: tc.reply}, nil))
			res := out.Results[0]
			if res.Error != "" || res.Score != tc.score || res.Verdict != tc.verdict || res.Type != "llm-rubric" {
				t.Errorf("got score %v verdict %s type %s error %q, want %v %s llm-rubric", res.Score, res.Verdict, res.Type, res.Error, tc.score, tc.verdict)
			}
		})
	}
}

// TestReadPromptfooBadFields: a field of the wrong kind is an unreadable reply.
func TestReadPromptfooBadFields(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{`{"reason": 5}`, `{"pass": null}`, `{"pass": true, "score": [1]}`, `{"checks": {"pass": true}}`, `{"checks": [{"text": 1}]}`} {
		m, err := v4ReplyObject(reply)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := readPromptfoo(m, nil, nil, ""); err == nil {
			t.Errorf("%s: read without error", reply)
		}
	}
}

// TestV5LLMRubricTextIsCriteria: an llm-rubric text is the criteria as written, even when it
// holds {{ }} (a suite assertion is not rendered) or names a file.
func TestV5LLMRubricTextIsCriteria(t *testing.T) {
	t.Parallel()
	for _, value := range []string{`"Matches key={{ expected_output }}"`, "notes.md", "file://notes.md"} {
		in := loadV5File(t, "prompts: [\"{{ input }}\"]\nassert:\n  - type: llm-rubric\n    value: "+value+"\ntests:\n  - id: t\n    vars: {input: hi}\n", "an answer")
		judge := &fakeJudge{reply: `{"pass": true, "score": 1}`}
		out := Evaluate(context.Background(), in, judgeOpts(judge, nil))
		reqs := judge.requests()
		if out.Results[0].Error != "" || len(reqs) != 1 {
			t.Fatalf("%s: error %q, %d requests", value, out.Results[0].Error, len(reqs))
		}
		want := "[[ ## criteria ## ]]\n" + strings.Trim(value, `"`) + "\n"
		if !strings.Contains(reqs[0].Question, want) || strings.Contains(reqs[0].Question, "a file the rubric text names") {
			t.Errorf("%s: prompt does not hold the text as criteria:\n%s", value, reqs[0].Question)
		}
	}
}

// TestV5GoalSuccess: trajectory:goal-success asks the judge with the goal, the trajectory and
// the answer; its not- form turns the verdict around.
func TestV5GoalSuccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ     string
		score   float64
		verdict string
		text    string
	}{
		{"trajectory:goal-success", 0.8, results.BandPass, ""},
		{"not-trajectory:goal-success", 0.2, results.BandFail, "Agent unexpectedly achieved the goal: Ship it"},
	} {
		in := loadV5Case(t, "      - type: "+tc.typ+"\n        value: {goal: Ship it}\n", "Shipped.")
		in.Response.OutputMessages = []suite.Message{{Role: "assistant", Content: suite.Content{Kind: suite.ContentText, Text: "Shipped."},
			ToolCalls: []byte(`[{"tool": "deploy", "input": {"env": "prod"}}, {"tool": "shell", "input": {"command": "make ship"}, "output": "ok"}]`)}}
		judge := &fakeJudge{reply: `{"pass": true, "score": 0.8, "reason": "done"}`}
		res := Evaluate(context.Background(), in, judgeOpts(judge, nil)).Results[0]
		if res.Error != "" || math.Abs(res.Score-tc.score) > 1e-9 || res.Verdict != tc.verdict || res.Type != strings.TrimPrefix(tc.typ, "not-") {
			t.Errorf("%s: score %v verdict %s type %s error %q", tc.typ, res.Score, res.Verdict, res.Type, res.Error)
		}
		if tc.text != "" && (len(res.Assertions) != 1 || res.Assertions[0].Text != tc.text) {
			t.Errorf("%s: assertions %+v", tc.typ, res.Assertions)
		}
		q := judge.requests()[0].Question
		for _, want := range []string{"Goal: Ship it", `"stepCount": 6`, `"name": "deploy"`, `"type": "command"`, `"name": "make ship"`, `"spanName": "shell"`, "Final output:\nShipped."} {
			if !strings.Contains(q, want) {
				t.Errorf("%s: judge prompt lacks %q:\n%s", tc.typ, want, q)
			}
		}
	}
}
