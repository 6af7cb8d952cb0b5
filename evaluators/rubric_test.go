package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/google/go-cmp/cmp"
)

func TestRubricJudge(t *testing.T) {
	t.Parallel()
	checklist := `{"rubrics": ["Mentions High", {"id": "tone", "expected_outcome": "Polite", "weight": 2, "required": false}]}`
	ranges := `{"rubrics": [
		{"id": "acc", "required_min_score": 6, "score_ranges": [{"score_range": [0, 4], "expected_outcome": "wrong"}, {"score_range": [5, 10], "description": "right"}]},
		{"id": "style", "expected_outcome": "Clear", "score_ranges": [{"score_range": [0, 10], "expected_outcome": "any"}]}]}`
	tests := []struct {
		name        string
		typ         string
		settings    string
		prompt      *suite.PromptSpec
		reply       string
		wantScore   float64
		wantVerdict string
		wantHits    []string
		wantMisses  []string
		wantPrompt  []string // substrings of the user prompt
		wantSystem  string
		wantErr     string
	}{
		{name: "checklist", typ: suite.TypeLLMJudge, settings: checklist,
			prompt:    &suite.PromptSpec{Kind: suite.PromptInline, Text: "ignored {{ candidate_answer }}"},
			reply:     `{"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "says High"}, {"id": "tone", "satisfied": false, "reasoning": "rude"}], "overall_reasoning": "mixed"}`,
			wantScore: 1.0 / 3, wantVerdict: "fail", wantHits: []string{"[rubric-1] Mentions High: says High"}, wantMisses: []string{"[tone] Polite: rude"},
			wantPrompt: []string{"[[ ## candidate_answer ## ]]\nHigh\n", "- [rubric-1] (REQUIRED): Mentions High\n- [tone] (weight: 2): Polite\n"},
			wantSystem: checklistSystemPrompt},
		{name: "required rubric fails the verdict", typ: "rubric",
			settings:  `{"rubrics": [{"id": "a", "expected_outcome": "A", "weight": 9, "required": false}, {"id": "b", "expected_outcome": "B"}]}`,
			reply:     `{"checks": [{"id": "a", "satisfied": true}, {"id": "b", "satisfied": false}]}`,
			wantScore: 0.9, wantVerdict: "fail", wantHits: []string{"[a] A"}, wantMisses: []string{"[b] B"}, wantSystem: checklistSystemPrompt},
		{name: "unassessed rubric counts as unmet", typ: suite.TypeLLMJudge, settings: checklist,
			reply:     "```json\n{\"checks\": [{\"id\": \"tone\", \"satisfied\": true}, {\"id\": \"extra\", \"satisfied\": true}]}\n```",
			wantScore: 2.0 / 3, wantVerdict: "fail", wantHits: []string{"[tone] Polite"}, wantMisses: []string{"[rubric-1] Mentions High: not assessed by the judge"},
			wantSystem: checklistSystemPrompt},
		{name: "score ranges", typ: suite.TypeLLMJudge, settings: ranges,
			reply:     `{"checks": [{"id": "acc", "score": 8, "reasoning": "correct"}, {"id": "style", "score": 5}], "overall_reasoning": "fine"}`,
			wantScore: 0.65, wantVerdict: "borderline", wantHits: []string{"[acc]: correct"}, wantMisses: []string{"[style] Clear scored 5/10"},
			wantPrompt: []string{"- [acc] (minimum score: 6)\n    0-4: wrong\n    5-10: right\n- [style]: Clear\n"}, wantSystem: rangesSystemPrompt},
		{name: "score below the minimum fails", typ: suite.TypeLLMJudge, settings: ranges,
			reply:     `{"checks": [{"id": "acc", "score": 5}, {"id": "style", "score": 15}]}`,
			wantScore: 0.75, wantVerdict: "fail", wantHits: []string{"[style] Clear scored 10/10"}, wantMisses: []string{"[acc] scored 5/10, below the required 6"},
			wantSystem: rangesSystemPrompt},
		{name: "no checks is score 0, not an error", typ: suite.TypeLLMJudge, settings: checklist, reply: `I cannot decide.`,
			wantScore: 0, wantVerdict: "fail", wantHits: []string{}, wantMisses: []string{}, wantSystem: checklistSystemPrompt},
		{name: "rubric without outcome", typ: suite.TypeLLMJudge, settings: `{"rubrics": [{"id": "x"}]}`, wantErr: "has no expected_outcome"},
		{name: "bad range", typ: suite.TypeLLMJudge, settings: `{"rubrics": [{"id": "x", "score_ranges": [{"score_range": [3, 11]}]}]}`, wantErr: "score_range: must be"},
		{name: "duplicate id", typ: suite.TypeLLMJudge, settings: `{"rubrics": [{"id": "x", "description": "a"}, {"id": "x", "description": "b"}]}`, wantErr: `duplicate rubric id "x"`},
		{name: "type rubric needs rubrics", typ: "rubric", settings: `{"name": "r"}`, wantErr: "needs `rubrics`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := &suite.EvaluatorSpec{Name: "rb", Type: tt.typ, Weight: 1, Settings: json.RawMessage(tt.settings), Prompt: tt.prompt}
			j := &fakeJudge{name: "j", reply: tt.reply}
			out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir(), spec), "High"), judgeOpts(j, nil))
			res := out.Results[0]
			if tt.wantErr != "" {
				if !strings.Contains(res.Error, tt.wantErr) || !out.Errored {
					t.Errorf("error = %q, want %q", res.Error, tt.wantErr)
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
			req := j.requests()[0]
			if req.SystemPrompt != tt.wantSystem {
				t.Errorf("system prompt = %q", req.SystemPrompt)
			}
			for _, w := range tt.wantPrompt {
				if !strings.Contains(req.Question, w) {
					t.Errorf("user prompt lacks %q:\n%s", w, req.Question)
				}
			}
			if strings.Contains(req.Question, "ignored") {
				t.Error("a custom prompt was used in rubric mode")
			}
		})
	}
}

func approx(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

func TestComposite(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	ms := 900.0
	members := func() []*suite.EvaluatorSpec {
		return []*suite.EvaluatorSpec{
			faSpec(`{"fields": [{"path": "riskLevel"}]}`),
			{Name: "fast", Type: "latency", Weight: 1, Settings: json.RawMessage(`{"threshold": 500}`)},
		}
	}
	tests := []struct {
		name       string
		settings   string
		members    []*suite.EvaluatorSpec
		reply      string
		wantScore  float64
		wantErr    string
		wantHits   []string
		wantReason string
		wantPrompt string
	}{
		{name: "weighted average with weights", settings: `{"aggregator": {"type": "weighted_average", "weights": {"fa": 3}}}`,
			wantScore: 0.75, wantHits: []string{"[fa] riskLevel"}, wantReason: "fa: 1/1 fields matched; fast: Duration 900ms > 500ms threshold"},
		{name: "default aggregator", settings: `{}`, wantScore: 0.5, wantHits: []string{"[fa] riskLevel"}},
		{name: "code aggregator", wantScore: 0, wantReason: "fa=1.0 fast=0.0",
			settings: `{"aggregator": {"type": "code_judge", "path": "python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"]; print(json.dumps({\"score\": min(v[\"score\"] for v in r.values()), \"reasoning\": \" \".join(\"%s=%.1f\" % (k, v[\"score\"]) for k, v in r.items())}))'"}}`},
		{name: "llm aggregator", settings: `{"aggregator": {"type": "llm_judge"}}`, reply: `{"score": 0.6, "hits": ["agreed"]}`,
			wantScore: 0.6, wantHits: []string{"agreed"}, wantPrompt: `"fast": {`},
		{name: "llm aggregator inline prompt", settings: `{"aggregator": {"type": "llm_judge", "prompt": "Results: {{EVALUATOR_RESULTS_JSON}} for {{ candidate_answer }}"}}`,
			reply: `{"score": 1}`, wantScore: 1, wantPrompt: "for {\"riskLevel\": \"High\"}"},
		{name: "member error errors the composite", settings: `{}`,
			members: []*suite.EvaluatorSpec{codeSpec("broken", "sh", "-c", "exit 4")}, wantErr: `member "broken" could not score`},
		{name: "no members", settings: `{}`, members: []*suite.EvaluatorSpec{}, wantErr: "needs `evaluators`"},
		{name: "bad aggregator", settings: `{"aggregator": {"type": "max"}}`, wantErr: `unknown composite aggregator "max"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := tt.members
			if m == nil {
				m = members()
			}
			spec := &suite.EvaluatorSpec{Name: "combo", Type: "composite", Weight: 1, Settings: json.RawMessage(tt.settings), Members: m}
			in := riskInput(riskCase(t.TempDir(), spec), `{"riskLevel": "High"}`)
			in.Trace = &results.TraceSummary{DurationMS: &ms}
			j := &fakeJudge{name: "j", reply: tt.reply}
			out := Evaluate(t.Context(), in, judgeOpts(j, nil))
			res := out.Results[0]
			if tt.wantErr != "" {
				if !strings.Contains(res.Error, tt.wantErr) || !out.Errored {
					t.Errorf("error = %q, want %q", res.Error, tt.wantErr)
				}
				return
			}
			if res.Error != "" || !approx(res.Score, tt.wantScore) || len(res.EvaluatorResults) != 2 {
				t.Fatalf("score %v error %q children %d; want %v", res.Score, res.Error, len(res.EvaluatorResults), tt.wantScore)
			}
			if tt.wantHits != nil {
				if diff := cmp.Diff(tt.wantHits, res.Hits); diff != "" {
					t.Errorf("hits (-want +got):\n%s", diff)
				}
			}
			if tt.wantReason != "" && res.Reasoning != tt.wantReason {
				t.Errorf("reasoning = %q, want %q", res.Reasoning, tt.wantReason)
			}
			if tt.wantPrompt != "" && (len(j.requests()) != 1 || !strings.Contains(j.requests()[0].Question, tt.wantPrompt)) {
				t.Errorf("judge prompt lacks %q: %+v", tt.wantPrompt, j.requests())
			}
		})
	}
}
