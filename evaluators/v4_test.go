package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
	"github.com/google/go-cmp/cmp"
)

// v4Case is riskCase from a 4.x file.
func v4Case(t *testing.T, evs ...*suite.EvaluatorSpec) *suite.Case {
	c := riskCase(t.TempDir(), evs...)
	c.Suite.Grading = suite.GradingRulesOf(suite.Dialect4)
	return c
}

func TestV4LLMGrader(t *testing.T) {
	t.Parallel()
	checklist := `{"rubrics": ["Mentions High", {"id": "tone", "expected_outcome": "Polite", "weight": 2, "required": false, "operator": "contradiction"}]}`
	ranges := `{"rubrics": [
		{"id": "acc", "min_score": 0.75, "score_ranges": [{"score_range": [0, 4], "expected_outcome": "wrong"}, {"score_range": [5, 10], "expected_outcome": "right"}]},
		{"id": "style", "expected_outcome": "Clear", "weight": 3, "score_ranges": [{"score_range": [0, 10], "expected_outcome": "any"}]}]}`
	tests := []struct {
		name        string
		settings    string
		prompt      *suite.PromptSpec
		reply       string
		wantScore   float64
		wantVerdict string
		wantHits    []string
		wantMisses  []string
		wantReason  string
		wantPrompt  []string // substrings of the user prompt
		wantSystem  string
		wantCalls   int
		wantErr     string
	}{
		{name: "free-form", reply: `{"score": 0.7, "assertions": [{"text": "says High", "passed": true, "evidence": "it does"}, {"text": "explains", "passed": false}]}`,
			wantScore: 0.7, wantVerdict: "fail", wantHits: []string{"says High"}, wantMisses: []string{"explains"}, wantReason: "says High: it does",
			wantPrompt: []string{"[[ ## criteria ## ]]\nCorrectly classify as high risk\n\n[[ ## question ## ]]\nFormatted: What is the risk level?\n\n[[ ## reference_answer ## ]]\n\n\n[[ ## answer ## ]]\nHigh"},
			wantSystem: v4FreeformSystem, wantCalls: 1},
		{name: "fenced, prose, passed as a word", reply: "Verdict:\n```json\n{\"score\": 1, \"assertions\": [{\"text\": \"a\", \"passed\": \"True\"}, {\"text\": \"b\", \"passed\": yes}]}\n```\n",
			wantScore: 1, wantVerdict: "pass", wantHits: []string{"a"}, wantMisses: []string{"b"}, wantSystem: v4FreeformSystem, wantCalls: 1},
		{name: "no assertions", reply: `{"score": 0.25}`, wantScore: 0.25, wantVerdict: "fail", wantHits: []string{}, wantMisses: []string{},
			wantSystem: v4FreeformSystem, wantCalls: 1},
		{name: "inline prompt without variables is criteria", prompt: &suite.PromptSpec{Kind: suite.PromptInline, Text: "Says it is high"},
			reply: `{"score": 1}`, wantScore: 1, wantVerdict: "pass", wantHits: []string{}, wantMisses: []string{},
			wantPrompt: []string{"[[ ## criteria ## ]]\nSays it is high\n"}, wantSystem: v4FreeformSystem, wantCalls: 1},
		{name: "inline template", prompt: &suite.PromptSpec{Kind: suite.PromptInline, Text: "Is {{ output }} right for {{input}}? {{ candidate_answer }}"},
			reply: `{"score": 1}`, wantScore: 1, wantVerdict: "pass", wantHits: []string{}, wantMisses: []string{},
			wantPrompt: []string{"Is High right for Formatted: What is the risk level?? {{ candidate_answer }}"}, wantSystem: v4FreeformSystem, wantCalls: 1},
		{name: "score above 1 is no verdict", reply: `{"score": 1.5}`, wantErr: "score: must be from 0 to 1", wantCalls: 4},
		{name: "string score is no verdict", reply: `{"score": "0.5"}`, wantErr: "score: expected number, received string", wantCalls: 4},
		{name: "null evidence is no verdict", reply: `{"score": 0.5, "assertions": [{"text": "a", "passed": true, "evidence": null}]}`,
			wantErr: "assertions[0].evidence: expected string, received null", wantCalls: 4},
		{name: "two objects are no verdict", reply: `{"score": 0.5} and {"score": 0.7}`, wantErr: "not valid JSON", wantCalls: 4},
		{name: "empty reply is not repaired", reply: ``, wantErr: "no valid verdict after 3 attempts", wantCalls: 3},

		{name: "checklist", settings: checklist,
			reply:     `{"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "says High"}, {"id": "tone", "satisfied": false, "reasoning": "rude"}, {"id": "other", "satisfied": true, "reasoning": "x"}], "overall_reasoning": "mixed"}`,
			wantScore: 1.0 / 3, wantVerdict: "fail", wantHits: []string{"[rubric-1] Mentions High"}, wantMisses: []string{"[tone] Polite"},
			wantReason: "mixed; [rubric-1] Mentions High: says High; [tone] Polite: rude",
			wantPrompt: []string{"Operator guidance:\n- Contradiction check", "- [rubric-1] (REQUIRED): Mentions High\n- [tone] (weight: 2) (operator: contradiction): Polite\n"},
			wantSystem: v4ChecklistSystem, wantCalls: 1},
		{name: "checklist weights are written as JavaScript writes numbers", settings: `{"rubrics": [{"id": "tiny", "expected_outcome": "T", "weight": 0.0000001}]}`,
			reply:     `{"checks": [{"id": "tiny", "satisfied": true, "reasoning": "y"}], "overall_reasoning": "ok"}`,
			wantScore: 1, wantVerdict: "pass", wantHits: []string{"[tiny] T"}, wantMisses: []string{}, wantReason: "ok; [tiny] T: y",
			wantPrompt: []string{"- [tiny] (REQUIRED) (weight: 1e-7): T\n"}, wantSystem: v4ChecklistSystem, wantCalls: 1},
		{name: "checklist: unassessed items are left out, a failed required one fails the verdict", settings: checklist,
			reply:     `{"checks": [{"id": "rubric-1", "satisfied": false, "reasoning": "no"}], "overall_reasoning": "none"}`,
			wantScore: 0, wantVerdict: "fail", wantHits: []string{}, wantMisses: []string{"[rubric-1] Mentions High"}, wantSystem: v4ChecklistSystem, wantCalls: 1},
		{name: "checklist: only the unrequired item, satisfied", settings: checklist,
			reply:     `{"checks": [{"id": "tone", "satisfied": true, "reasoning": "kind"}], "overall_reasoning": "ok"}`,
			wantScore: 1, wantVerdict: "pass", wantHits: []string{"[tone] Polite"}, wantMisses: []string{}, wantSystem: v4ChecklistSystem, wantCalls: 1},
		{name: "checklist needs overall_reasoning", settings: checklist, reply: `{"checks": []}`, wantErr: "overall_reasoning: required", wantCalls: 4},
		{name: "score ranges", settings: ranges,
			reply:     `{"checks": [{"id": "acc", "score": 7, "reasoning": "close"}, {"id": "style", "score": 9}]}`,
			wantScore: (0.7 + 3*0.9) / 4, wantVerdict: "fail", wantHits: []string{"[style] Clear - Score: 9/10 (any)"},
			wantMisses: []string{"[acc] acc - Score: 7/10 (right)"}, wantReason: "[acc] acc - Score: 7/10 (right): close",
			wantPrompt: []string{"### Criterion: acc [REQUIRED: min score 0.75]\nScore ranges:\n  - Score 0-4: wrong\n  - Score 5-10: right\n\n### Criterion: style (weight: 3)\nDescription: Clear\n"},
			wantSystem: v4RangeSystem, wantCalls: 1},
		{name: "score ranges: the required criterion at its minimum passes, the grader at 0.65 fails", settings: ranges,
			reply:     `{"checks": [{"id": "acc", "score": 8}, {"id": "style", "score": 6}]}`,
			wantScore: (0.8 + 3*0.6) / 4, wantVerdict: "fail", wantHits: []string{"[acc] acc - Score: 8/10 (right)"},
			wantMisses: []string{"[style] Clear - Score: 6/10 (any)"}, wantSystem: v4RangeSystem, wantCalls: 1},
		{name: "score ranges need whole scores", settings: ranges, reply: `{"checks": [{"id": "acc", "score": 7.5}]}`,
			wantErr: "checks[0].score: must be a whole number", wantCalls: 4},
		{name: "template with rubrics keeps the rubric verdict", settings: checklist,
			prompt:    &suite.PromptSpec{Kind: suite.PromptFile, Text: "Grade {{ output }} on {{ rubrics_json }}"},
			reply:     `{"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "y"}], "overall_reasoning": "ok"}`,
			wantScore: 1, wantVerdict: "pass", wantHits: []string{"[rubric-1] Mentions High"}, wantMisses: []string{},
			wantPrompt: []string{`Grade High on [{"id":"rubric-1","outcome":"Mentions High","weight":1,"required":true},{"id":"tone","outcome":"Polite","operator":"contradiction","weight":2,"required":false}]`},
			wantSystem: v4ChecklistSystem, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			settings := tt.settings
			if settings == "" {
				settings = "{}"
			}
			spec := &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, Settings: json.RawMessage(settings), Prompt: tt.prompt, JudgeCommonKeys: true}
			j := &fakeJudge{name: "j", reply: tt.reply}
			out := Evaluate(t.Context(), riskInput(v4Case(t, spec), "High"), judgeOpts(j, nil))
			res := out.Results[0]
			if n := len(j.requests()); n != tt.wantCalls {
				t.Errorf("%d judge calls, want %d", n, tt.wantCalls)
			}
			if tt.wantErr != "" {
				if !strings.Contains(res.Error, tt.wantErr) || !out.Errored || out.Score != 0 {
					t.Errorf("error = %q errored %v score %v, want %q, errored, 0", res.Error, out.Errored, out.Score, tt.wantErr)
				}
				// 4.42.4's verdict of an llm-grader that could not grade (llm-grader.ts:351).
				if res.Verdict != results.BandSkip {
					t.Errorf("verdict %q, want %q", res.Verdict, results.BandSkip)
				}
				return
			}
			if res.Error != "" || !approx(res.Score, tt.wantScore) || res.Verdict != tt.wantVerdict {
				t.Errorf("score %v verdict %s error %q; want %v %s", res.Score, res.Verdict, res.Error, tt.wantScore, tt.wantVerdict)
			}
			if diff := cmp.Diff(tt.wantHits, res.Hits); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMisses, res.Misses); diff != "" {
				t.Errorf("misses (-want +got):\n%s", diff)
			}
			if tt.wantReason != "" && res.Reasoning != tt.wantReason {
				t.Errorf("reasoning %q, want %q", res.Reasoning, tt.wantReason)
			}
			req := j.requests()[0]
			if req.SystemPrompt != tt.wantSystem {
				t.Errorf("system prompt = %q", req.SystemPrompt)
			}
			for _, w := range tt.wantPrompt {
				if !strings.Contains(req.Question, w) {
					t.Errorf("user prompt lacks %q:\n%s", w, req.Question)
				}
			}
		})
	}
}

// An llm-grader's temperature goes to the judge only when the grader names its own target.
func TestV4Temperature(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target, settings string
		want             *float64
	}{
		{"j", `{"temperature": 0.3}`, new(0.3)},
		{"", `{"temperature": 0.3}`, nil},
		{"j", `{"temperature": 5}`, nil},
		{"j", `{}`, nil},
	}
	for _, tt := range tests {
		spec := &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, Target: tt.target, Settings: json.RawMessage(tt.settings), JudgeCommonKeys: true}
		j := &fakeJudge{name: "j", reply: `{"score": 1}`}
		Evaluate(t.Context(), riskInput(v4Case(t, spec), "High"), judgeOpts(j, nil))
		got := j.requests()[0].Temperature
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("target %q settings %s: temperature %v, want %v", tt.target, tt.settings, got, tt.want)
		}
	}
}

// The fourth call repairs the last reply: it carries the reply and what is wrong with it.
func TestV4RepairRequest(t *testing.T) {
	t.Parallel()
	spec := &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, JudgeCommonKeys: true}
	j := &fakeJudge{name: "j", reply: `{"score": 2}`}
	Evaluate(t.Context(), riskInput(v4Case(t, spec), "High"), judgeOpts(j, nil))
	reqs := j.requests()
	if len(reqs) != 4 || !strings.Contains(reqs[3].Question, `{"score": 2}`) || !strings.Contains(reqs[3].Question, "score: must be from 0 to 1") ||
		reqs[3].SystemPrompt != v4FreeformSystem {
		t.Fatalf("%d calls; last %q", len(reqs), reqs[len(reqs)-1].Question)
	}
}

func TestParseV4GraderOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, out          string
		score              float64
		hits, misses       []string
		reasoning, details string
	}{
		{name: "score and assertions", out: `{"score": 0.4, "assertions": [{"text": "a", "passed": true, "evidence": "e"}, {"text": "b", "passed": 0}]}`,
			score: 0.4, hits: []string{"a"}, misses: []string{"b"}, reasoning: "a: e"},
		{name: "no score: the share of passed assertions", out: `{"assertions": [{"text": "a", "passed": true}, {"text": "b"}, {"text": "c", "passed": "yes"}, {"passed": true}]}`,
			score: 2.0 / 3, hits: []string{"a", "c"}, misses: []string{"b"}},
		{name: "no score, no assertions", out: `{"details": {"n": 1}}`, score: 0, hits: []string{}, misses: []string{}, details: `{"n":1}`},
		{name: "2.5 keys still count", out: `{"score": 2, "hits": ["h"], "misses": ["m"], "reasoning": "why"}`,
			score: 1, hits: []string{"h"}, misses: []string{"m"}, reasoning: "why"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := parseV4GraderOutput([]byte(tt.out))
			if v.err != nil || !approx(v.score, tt.score) || v.reasoning != tt.reasoning || string(v.details) != tt.details {
				t.Errorf("score %v reasoning %q details %s err %v; want %v %q %s", v.score, v.reasoning, v.details, v.err, tt.score, tt.reasoning, tt.details)
			}
			if diff := cmp.Diff(tt.hits, v.hits); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.misses, v.misses); diff != "" {
				t.Errorf("misses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestThresholdAggregate(t *testing.T) {
	t.Parallel()
	kids := []results.EvaluatorResult{
		{Name: "a", Score: 1, Verdict: results.BandPass, Hits: []string{"ok"}},
		{Name: "b", Score: 0.7, Verdict: results.BandBorderline, Misses: []string{"meh"}},
		{Name: "c", Score: 0.9, Verdict: results.BandFail}, // a failed required rubric
	}
	tests := []struct {
		threshold float64
		hits      []string
		misses    []string
		fail      bool
	}{
		{0.3, []string{"1/3 evaluators passed (threshold: 0.3)", "[a] ok"}, []string{"[b] meh"}, false},
		{0.5, []string{"[a] ok"}, []string{"1/3 evaluators passed (threshold: 0.5)", "[b] meh"}, true},
	}
	for _, tt := range tests {
		v := thresholdAggregate(kids, tt.threshold)
		if !approx(v.score, 1.0/3) || v.forceFail != tt.fail || v.forcePass == tt.fail || !cmp.Equal(v.hits, tt.hits) || !cmp.Equal(v.misses, tt.misses) {
			t.Errorf("threshold %v: score %v fail %v hits %q misses %q", tt.threshold, v.score, v.forceFail, v.hits, v.misses)
		}
	}
}

// The 4.x payload has the 4.x names and the 2.5 ones that do not collide, every key snake_cased
// as 4.42.4 sends it (user data included).
func TestV4Payload(t *testing.T) {
	t.Parallel()
	in := riskInput(v4Case(t), "High")
	b, err := newCaseData(in).v4Payload(v4PayloadOpts{config: json.RawMessage(`{"riskLevel": "x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"criteria": `"Correctly classify as high risk"`, "output": `"High"`, "expected_output": `[{"role":"assistant","content":{"risk_level":"High"}}]`,
		// The transcript starts with the prompt the target was sent, as 4.42.4 records it.
		"messages":      `[{"role":"user","content":"Formatted: What is the risk level?  \n"},{"role":"assistant","content":"High"}]`,
		"input":         `[{"role":"user","content":"What is the risk level?"}]`,
		"trace_summary": `{"event_count":0,"tool_calls":{},"error_count":0,"llm_call_count":1}`,
		"config":        `{"risk_level":"x"}`, "metadata": "null", "token_usage": "null", "workspace_path": "null",
		"file_changes": "null",
	}
	for k, w := range want {
		if got := string(p[k]); got != w {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
	// 4.42.4's Python helper rejects the 2.5 names; none is sent.
	for _, k := range []string{"question", "expected_outcome", "actual_output", "output_messages", "reference_answer",
		"guideline_files", "candidate_answer", "input_messages", "expected_messages", "output_text", "input_text"} {
		if _, ok := p[k]; ok {
			t.Errorf("payload has the 2.5 name %q", k)
		}
	}
	// The canonical trace: the transcript and its events, as @agentv/sdk 4.42.4 requires.
	var tr struct {
		Messages json.RawMessage `json:"messages"`
		Events   []struct {
			EventID, Type string
		} `json:"events"`
	}
	if err := json.Unmarshal(p["trace"], &tr); err != nil {
		t.Fatal(err)
	}
	if string(tr.Messages) != string(p["messages"]) || len(tr.Events) != 3 || tr.Events[2].Type != "final_response" {
		t.Errorf("trace = %s", p["trace"])
	}
	if _, ok := p["output_path"]; ok {
		t.Error("output_path set for a small answer")
	}
	if _, ok := p["answer"]; ok {
		t.Error("answer set outside a prompt template's payload")
	}
}

func TestV4ToolCalls(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 130)
	tests := []struct{ calls, want string }{
		{`[{"tool": "Read", "input": {"file_path": "a.txt"}}, {"tool": "search", "input": {"n": 3, "q": "answer", "r": "later"}}, {"tool": "Bash", "input": {"command": "ls"}}, {"tool": "noinput"}]`,
			"- Read: a.txt\n- search: answer\n- Bash: ls\n- noinput"},
		{`[{"tool": "Bash", "input": {"cwd": "/", "command": "` + long + `"}}]`, "- Bash: " + strings.Repeat("x", 120) + "…"},
		{`[{"tool": "other", "input": {"big": "` + long + `", "small": "s"}}]`, "- other: s"},
		{`[{"input": {}}]`, "- unknown"},
		{`not json`, ""},
	}
	for _, tt := range tests {
		msgs := []suite.Message{{Role: "assistant", ToolCalls: json.RawMessage(tt.calls)}}
		if got := v4ToolCalls(msgs); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.calls, got, tt.want)
		}
	}
}

// TestV4InputFiles: a 4.x payload's input_files lists every file the input references and that
// was found, in order, guideline files included, as 4.42.4 lists them (checked by running it on
// a test with input_files: [docs/style.instructions.md, docs/data.txt]).
func TestV4InputFiles(t *testing.T) {
	t.Parallel()
	seg := func(path string, guideline bool) suite.Segment {
		return suite.Segment{Type: "file", Value: path, Resolved: "/evals/" + path, Guideline: guideline}
	}
	input := []suite.Message{
		{Role: "system", Content: suite.Content{Kind: suite.ContentText, Text: "be brief"}},
		{Role: "user", Content: suite.Content{Kind: suite.ContentSegments, Segments: []suite.Segment{
			seg("docs/style.instructions.md", true), seg("docs/data.txt", false),
			{Type: "file", Value: "missing.txt"}, {Type: "text", Value: "what is in the files?"},
		}}},
		{Role: "user", Content: suite.Content{Kind: suite.ContentSegments, Segments: []suite.Segment{seg("b.txt", false)}}},
	}
	got := v4InputFiles(input)
	want := []string{"/evals/docs/style.instructions.md", "/evals/docs/data.txt", "/evals/b.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("input_files %q, want %q", got, want)
	}
	if got := v4InputFiles(nil); got == nil || len(got) != 0 {
		t.Errorf("no files: %#v, want an empty list (JSON [])", got)
	}
}

// A grader's verdict follows its file's dialect: 2.5 bands the score (borderline from 0.6),
// 4.x has pass or fail at 0.8 whatever the grader's min_score, and a negated 4.x grader's
// verdict is swapped, not derived from the negated score (4.42.4's scoring.ts).
func TestGraderVerdictByDialect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		dialect     string
		settings    string
		score       string
		wantScore   float64
		wantVerdict string
	}{
		{name: "2.5 at 0.7 is borderline", score: "0.7", wantScore: 0.7, wantVerdict: "borderline"},
		{name: "2.5 at 0.5 fails", score: "0.5", wantScore: 0.5, wantVerdict: "fail"},
		{name: "4.x at 0.7 fails", dialect: suite.Dialect4, score: "0.7", wantScore: 0.7, wantVerdict: "fail"},
		{name: "4.x at 0.8 passes", dialect: suite.Dialect4, score: "0.8", wantScore: 0.8, wantVerdict: "pass"},
		{name: "4.x min_score does not move the verdict", dialect: suite.Dialect4, settings: `{"min_score": 0.5}`, score: "0.7", wantScore: 0.7, wantVerdict: "fail"},
		{name: "4.x negated 0.7 is 0.3 and passes", dialect: suite.Dialect4, settings: `{"negate": true}`, score: "0.7", wantScore: 0.3, wantVerdict: "pass"},
		{name: "4.x negated 0.9 is 0.1 and fails", dialect: suite.Dialect4, settings: `{"negate": true}`, score: "0.9", wantScore: 0.1, wantVerdict: "fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			settings := tt.settings
			if settings == "" {
				settings = "{}"
			}
			spec := &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, Settings: json.RawMessage(settings), JudgeCommonKeys: tt.dialect == suite.Dialect4}
			c := riskCase(t.TempDir(), spec)
			c.Suite.Grading = suite.GradingRulesOf(tt.dialect)
			reply := `{"score": ` + tt.score + `, "hits": [], "misses": [], "reasoning": "r"}`
			if tt.dialect == suite.Dialect4 {
				reply = `{"score": ` + tt.score + `, "assertions": []}`
			}
			out := Evaluate(t.Context(), riskInput(c, "High"), judgeOpts(&fakeJudge{name: "j", reply: reply}, nil))
			res := out.Results[0]
			if res.Error != "" || !approx(res.Score, tt.wantScore) || res.Verdict != tt.wantVerdict {
				t.Errorf("score %v verdict %q error %q; want %v %q", res.Score, res.Verdict, res.Error, tt.wantScore, tt.wantVerdict)
			}
		})
	}
}

// scriptedJudge answers its calls in turn from steps (the last one repeats): a reply, or an
// error when err is set.
type scriptedJudge struct {
	steps []scriptStep
	mu    sync.Mutex
	calls []string // each call's user prompt
}

type scriptStep struct {
	reply string
	err   error
}

func (s *scriptedJudge) Target() *targets.Target { return &targets.Target{Name: "j", Kind: "mock"} }

func (s *scriptedJudge) Invoke(_ context.Context, req *providers.Request) (*providers.Response, error) {
	s.mu.Lock()
	step := s.steps[min(len(s.calls), len(s.steps)-1)]
	s.calls = append(s.calls, req.Question)
	s.mu.Unlock()
	if step.err != nil {
		return nil, step.err
	}
	return &providers.Response{Text: step.reply}, nil
}

// TestV4JudgeAttempts: a 4.x llm-grader asks as AgentV 4.42.4's runWithRetry does
// (graders/llm-grader.ts:1058-1105): three calls, a failed call counting as one, then a repair
// request when the last reply that came was text that does not parse. The call counts are
// 4.42.4's against a loopback OpenAI-compatible server answering the same way (see
// TestV4JudgeAttemptsOverHTTP in test/e2e for the HTTP level).
func TestV4JudgeAttempts(t *testing.T) {
	t.Parallel()
	refused := errors.New("HTTP 400 Bad Request: bad")
	good := scriptStep{reply: `{"score": 1}`}
	tests := []struct {
		name    string
		steps   []scriptStep
		calls   int
		repair  bool // the last call is the repair request
		wantErr string
	}{
		{"a call that fails every time is asked three times", []scriptStep{{err: refused}}, 3, false, "HTTP 400 Bad Request: bad (the grader asked 3 times)"},
		{"a failed call is asked again", []scriptStep{{err: refused}, good}, 2, false, ""},
		{"two failed calls, then a verdict", []scriptStep{{err: refused}, {err: refused}, good}, 3, false, ""},
		{"prose, then failed calls: the prose is repaired", []scriptStep{{reply: "fine"}, {err: refused}, {err: refused}, good}, 4, true, ""},
		{"prose, then empty replies: nothing to repair", []scriptStep{{reply: "fine"}, {reply: ""}}, 3, false, "no valid verdict after 3 attempts"},
		{"a failed repair call", []scriptStep{{reply: "fine"}, {reply: "fine"}, {reply: "fine"}, {err: refused}}, 4, true, "HTTP 400 Bad Request: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, JudgeCommonKeys: true}
			j := &scriptedJudge{steps: tt.steps}
			out := Evaluate(t.Context(), riskInput(v4Case(t, spec), "High"), judgeOpts(j, nil))
			res := out.Results[0]
			if len(j.calls) != tt.calls {
				t.Errorf("%d judge calls, want %d", len(j.calls), tt.calls)
			}
			if repair := strings.Contains(j.calls[len(j.calls)-1], "Rewrite it to match that structure"); repair != tt.repair {
				t.Errorf("last call a repair request: %v, want %v", repair, tt.repair)
			}
			if tt.wantErr == "" && (res.Error != "" || res.Score != 1) || tt.wantErr != "" && (!strings.Contains(res.Error, tt.wantErr) || !out.Errored) {
				t.Errorf("score %v error %q; want error %q", res.Score, res.Error, tt.wantErr)
			}
		})
	}
}

// A judge call that timed out, after the run's timeout retries, is not asked again by the
// grader: three attempts would triple a wait 4.42.4 does not have.
func TestV4JudgeTimeoutNotReasked(t *testing.T) {
	t.Parallel()
	spec := &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, JudgeCommonKeys: true}
	j := &fakeJudge{name: "slow", hang: true}
	opts := judgeOpts(j, nil)
	opts.Timeout, opts.MaxRetries = 20*time.Millisecond, 1
	out := Evaluate(t.Context(), riskInput(v4Case(t, spec), "High"), opts)
	if n := len(j.requests()); n != 2 || !strings.Contains(out.Results[0].Error, "timed out") {
		t.Errorf("%d calls, error %q; want 2 (1 + max retries), timed out", n, out.Results[0].Error)
	}
}
