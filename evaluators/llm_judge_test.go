package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

func TestLLMJudgeReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      string
		err        error
		wantScore  float64
		wantHits   []string
		wantMisses []string
		wantErr    string // substring of Error; "" means no error
		wantReason string // substring of Reasoning
	}{
		{name: "plain verdict", reply: `{"score": 0.9, "hits": ["names High"], "misses": [], "reasoning": "correct"}`,
			wantScore: 0.9, wantHits: []string{"names High"}, wantMisses: []string{}, wantReason: "correct"},
		{name: "no json", reply: "The answer looks right to me.", wantScore: 0, wantHits: []string{}, wantMisses: []string{},
			wantReason: "no JSON verdict"},
		{name: "two objects first wins", reply: `{"score": 0.25, "reasoning": "first"} {"score": 1, "reasoning": "second"}`,
			wantScore: 0.25, wantHits: []string{}, wantMisses: []string{}, wantReason: "first"},
		{name: "fenced", reply: "Here you go:\n```json\n{\"score\": 0.75, \"hits\": [\"a\"], \"misses\": [\"b\"]}\n```\n",
			wantScore: 0.75, wantHits: []string{"a"}, wantMisses: []string{"b"}},
		{name: "embedded in prose", reply: `I would say {"score": 0.6, "reasoning": "partly"} overall.`,
			wantScore: 0.6, wantHits: []string{}, wantMisses: []string{}, wantReason: "partly"},
		{name: "score 7 clamps to 1", reply: `{"score": 7}`, wantScore: 1, wantHits: []string{}, wantMisses: []string{}},
		{name: "score -1 clamps to 0", reply: `{"score": -1, "misses": ["wrong"]}`, wantScore: 0, wantHits: []string{}, wantMisses: []string{"wrong"}},
		{name: "string score is no verdict", reply: `{"score": "0.9", "hits": ["x"], "reasoning": "r"}`,
			wantScore: 0, wantHits: []string{}, wantMisses: []string{}, wantReason: "r"},
		{name: "missing score is no verdict", reply: `{"hits": ["x"]}`, wantScore: 0, wantHits: []string{}, wantMisses: []string{},
			wantReason: "no numeric score"},
		{name: "hits capped and blanks dropped",
			reply:     `{"score": 1, "hits": ["1", " ", "2", 3, "3", "4", "5"], "misses": ["", "m"]}`,
			wantScore: 1, wantHits: []string{"1", "2", "3", "4"}, wantMisses: []string{"m"}},
		{name: "provider error", err: errors.New("HTTP 500 after 3 retries"), wantScore: 0, wantHits: []string{},
			wantMisses: []string{`evaluator "judge-it" could not score: judge "judge-target": HTTP 500 after 3 retries`},
			wantErr:    "HTTP 500 after 3 retries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := &fakeJudge{name: "judge-target", reply: tt.reply, err: tt.err}
			spec := &suite.EvaluatorSpec{Name: "judge-it", Type: suite.TypeLLMJudge, Weight: 1}
			out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir(), spec), "High"), judgeOpts(j, nil))
			res := out.Results[0]
			if res.Score != tt.wantScore || out.Score != tt.wantScore {
				t.Errorf("score = %v (case %v), want %v", res.Score, out.Score, tt.wantScore)
			}
			if diff := cmp.Diff(tt.wantHits, res.Hits); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMisses, res.Misses); diff != "" {
				t.Errorf("misses (-want +got):\n%s", diff)
			}
			if (tt.wantErr == "") != (res.Error == "") || !strings.Contains(res.Error, tt.wantErr) || out.Errored != (tt.wantErr != "") {
				t.Errorf("error = %q (errored %v), want %q", res.Error, out.Errored, tt.wantErr)
			}
			if !strings.Contains(res.Reasoning, tt.wantReason) {
				t.Errorf("reasoning = %q, want it to contain %q", res.Reasoning, tt.wantReason)
			}
			if res.Verdict == "" || res.Type != suite.TypeLLMJudge || res.Name != "judge-it" {
				t.Errorf("result = %+v", res)
			}
		})
	}
}

func TestLLMJudgeDefaultPrompt(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{name: "the-judge", reply: `{"score": 1}`}
	c := riskCase(t.TempDir())
	c.ReferenceAnswer, c.HasReference = "  High risk  ", true
	in := riskInput(c, "  It is High.  ")
	override := "unset"
	out := Evaluate(t.Context(), in, judgeOpts(j, &override))

	reqs := j.requests()
	if len(reqs) != 1 {
		t.Fatalf("judge called %d times, want 1", len(reqs))
	}
	req := reqs[0]
	if req.SystemPrompt != SystemPrompt || req.EvalID != "risk-1" || req.Dir != c.Suite.Dir {
		t.Errorf("request = %+v", req)
	}
	if override != "" {
		t.Errorf("default judge passed override %q, want empty", override)
	}
	wantTail := "[[ ## expected_outcome ## ]]\nCorrectly classify as high risk\n\n" +
		"[[ ## question ## ]]\nFormatted: What is the risk level?\n\n" +
		"[[ ## reference_answer ## ]]\nHigh risk\n\n" +
		"[[ ## candidate_answer ## ]]\nIt is High.\n"
	if !strings.HasPrefix(req.Question, defaultInstructions) || !strings.HasSuffix(req.Question, wantTail) {
		t.Errorf("user prompt:\n%s\nwant instructions then:\n%s", req.Question, wantTail)
	}
	for _, s := range []string{"JSON object", `"score"`, `"hits"`, `"misses"`, `"reasoning"`, "up to 4"} {
		if !strings.Contains(SystemPrompt, s) {
			t.Errorf("system prompt lacks %q", s)
		}
	}
	res := out.Results[0]
	if res.Name != DefaultJudgeName || res.Weight != 1 {
		t.Errorf("default judge result = %+v", res)
	}
	var er struct {
		UserPrompt   *string `json:"user_prompt"`
		SystemPrompt string  `json:"system_prompt"`
		Target       string  `json:"target"`
	}
	if err := json.Unmarshal(out.DefaultJudgeRequest, &er); err != nil {
		t.Fatalf("DefaultJudgeRequest %s: %v", out.DefaultJudgeRequest, err)
	}
	if er.UserPrompt == nil || *er.UserPrompt != req.Question || er.SystemPrompt != SystemPrompt || er.Target != "the-judge" {
		t.Errorf("evaluator_provider_request = %s", out.DefaultJudgeRequest)
	}
	// The record stores the prompt once: at the top, not again on the judge's entry.
	if res.EvaluatorProviderRequest != nil {
		t.Errorf("default judge result also carries the request: %s", res.EvaluatorProviderRequest)
	}
}

func TestLLMJudgeQuestionFallback(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{name: "j", reply: `{"score": 1}`}
	in := riskInput(riskCase(t.TempDir()), "x")
	in.Request = nil
	Evaluate(t.Context(), in, judgeOpts(j, nil))
	if q := j.requests()[0].Question; !strings.Contains(q, "[[ ## question ## ]]\nWhat is the risk level?\n") {
		t.Errorf("user prompt does not fall back to the case question:\n%s", q)
	}
}

func TestLLMJudgeOverrideTarget(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{name: "strict", reply: `{"score": 1}`}
	spec := &suite.EvaluatorSpec{Name: "strict-judge", Type: suite.TypeLLMJudge, Weight: 1, Target: "strict"}
	var override string
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir(), spec), "x"), judgeOpts(j, &override))
	if override != "strict" {
		t.Errorf("resolver got override %q, want strict", override)
	}
	if out.DefaultJudgeRequest != nil {
		t.Error("DefaultJudgeRequest set for a configured judge")
	}
}

func TestLLMJudgeTimeout(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{name: "slow", hang: true}
	opts := judgeOpts(j, nil)
	opts.Timeout = 50 * time.Millisecond
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir()), "x"), opts)
	res := out.Results[0]
	if !out.Errored || !strings.Contains(res.Error, "timed out after 50ms") || len(res.Misses) != 1 {
		t.Errorf("result = %+v", res)
	}
}

// stuckJudge ignores its context: it answers only when release is closed.
type stuckJudge struct{ release chan struct{} }

func (stuckJudge) Target() *targets.Target { return &targets.Target{Name: "stuck", Kind: "mock"} }

func (s stuckJudge) Invoke(context.Context, *providers.Request) (*providers.Response, error) {
	<-s.release
	return &providers.Response{Text: `{"score":1}`}, nil
}

// A judge that does not honour its context still times out: the call is not waited for.
func TestLLMJudgeTimeoutIgnoredContext(t *testing.T) {
	t.Parallel()
	j := stuckJudge{release: make(chan struct{})}
	defer close(j.release)
	opts := judgeOpts(j, nil)
	opts.Timeout = 50 * time.Millisecond
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir()), "x"), opts)
	if res := out.Results[0]; !out.Errored || !strings.Contains(res.Error, "timed out after 50ms") {
		t.Errorf("result = %+v", res)
	}
}

// panicJudge panics in Invoke.
type panicJudge struct{}

func (panicJudge) Target() *targets.Target { return &targets.Target{Name: "boom", Kind: "mock"} }

func (panicJudge) Invoke(context.Context, *providers.Request) (*providers.Response, error) {
	panic("judge exploded")
}

func TestLLMJudgePanics(t *testing.T) {
	t.Parallel()
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir()), "x"), judgeOpts(panicJudge{}, nil))
	if res := out.Results[0]; !out.Errored || !strings.Contains(res.Error, "provider panicked: judge exploded") {
		t.Errorf("result = %+v", res)
	}
}

func TestLLMJudgeResolverError(t *testing.T) {
	t.Parallel()
	opts := &Options{Judges: func(*targets.Target, string) (providers.Provider, error) {
		return nil, errors.New(`unknown target "nope"`)
	}}
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir()), "x"), opts)
	if !out.Errored || !strings.Contains(out.Results[0].Error, `unknown target "nope"`) {
		t.Errorf("result = %+v", out.Results[0])
	}
	out = Evaluate(t.Context(), riskInput(riskCase(t.TempDir()), "x"), &Options{})
	if !out.Errored || !strings.Contains(out.Results[0].Error, "no judge provider") {
		t.Errorf("result without resolver = %+v", out.Results[0])
	}
}

func TestLLMJudgeRedactsSecrets(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-ABCDEF123456"
	j := &fakeJudge{name: "j", reply: `{"score": 0.5, "hits": ["saw ` + secret + `"], "misses": ["leaked ` + secret + `"], "reasoning": "key ` + secret + `"}`}
	opts := judgeOpts(j, nil)
	opts.Redactor.Add(secret)
	out := Evaluate(t.Context(), riskInput(riskCase(t.TempDir()), "the key is "+secret), opts)
	raw, _ := json.Marshal(out)
	if strings.Contains(string(raw), secret) {
		t.Errorf("secret leaked: %s", raw)
	}
	if !strings.Contains(j.requests()[0].Question, secret) {
		t.Error("the judge itself should still see the real candidate")
	}
}

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{`{"score": 0.5, "hits": ["a"]}`, "```json\n{\"score\": 2}\n```", `{"score": -1e999}`, `{"score": "1"}`, `x {"hits": [1, " ", "b"]} y`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		v, _ := readVerdict(reply)
		if v.score < 0 || v.score > 1 || len(v.hits) > maxVerdictItems || len(v.misses) > maxVerdictItems || v.err != nil {
			t.Fatalf("readVerdict(%q) = %+v", reply, v)
		}
		for _, s := range append(append([]string{}, v.hits...), v.misses...) {
			if strings.TrimSpace(s) == "" {
				t.Fatalf("readVerdict(%q) kept a blank item", reply)
			}
		}
	})
}
