package evaluators

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// fakeEmbeddings serves OpenAI-style embeddings with fixed vectors per text; an unknown
// text gets [0, 0, 1]. It records the bearer tokens it saw.
func fakeEmbeddings(t *testing.T, vectors map[string][]float64) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" {
			http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		out := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
		}{Object: "list", Model: req.Model}
		for i, text := range req.Input {
			v, ok := vectors[text]
			if !ok {
				v = []float64{0, 0, 1}
			}
			out.Data = append(out.Data, item{"embedding", i, v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), auths...) }
}

func TestSimilar(t *testing.T) {
	t.Parallel()
	srv, auths := fakeEmbeddings(t, map[string][]float64{
		"The risk is high": {1, 0, 0},
		"High risk":        {1, 0, 0},
		"Risk: elevated":   {1, 1, 0}, // cos 0.7071: (1 + 0.7071) / 2 = 0.8536
		"Low risk":         {-1, 0, 0},
	})
	base := srv.URL + "/v1"
	tests := []struct {
		name, settings, answer string
		score                  float64
		pass                   bool
		text, err              string
	}{
		{name: "same meaning", settings: `{"value": "The risk is high", "config": {"embedding_provider": {"base_url": "` + base + `", "model": "emb"}}}`,
			answer: "High risk", score: 1, pass: true, text: "Embedding similarity 1.000 >= 0.75"},
		{name: "close", settings: `{"value": "The risk is high", "provider": {"endpoint": "` + base + `/", "model": "emb"}}`,
			answer: "Risk: elevated", score: 0.8535533905932737, pass: true},
		{name: "close under a threshold", settings: `{"value": "The risk is high", "threshold": 0.9, "config": {"base_url": "` + base + `", "model": "emb"}}`,
			answer: "Risk: elevated", score: 0.8535533905932737, pass: false, text: "Embedding similarity 0.854 < 0.9"},
		{name: "opposite", settings: `{"value": "The risk is high", "config": {"embedding_provider": {"base_url": "` + base + `", "model": "emb", "api_key": "{{ env.EMB_KEY }}"}}}`,
			answer: "Low risk", score: 0, pass: false},
		{name: "orthogonal", settings: `{"value": "The risk is high", "config": {"base_url": "` + base + `", "model": "emb"}}`,
			answer: "something else", score: 0.5, pass: false},
		{name: "server error", settings: `{"value": "x", "config": {"base_url": "` + base + `/nope", "model": "emb"}}`,
			answer: "y", err: "returned HTTP 400: bad request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := loadedSpec(t, "sim", "similar", tt.settings)
			in := riskInput(riskCase(t.TempDir(), spec), tt.answer)
			red := &redact.Redactor{}
			res := Evaluate(t.Context(), in, &Options{Timeout: 10 * time.Second, Redactor: red, Env: []string{"EMB_KEY=emb-key-0123"}}).Results[0]
			if tt.err != "" {
				if !strings.Contains(res.Error, tt.err) {
					t.Fatalf("error = %q, want %q", res.Error, tt.err)
				}
				return
			}
			want := map[bool]string{true: "pass", false: "fail"}[tt.pass]
			if res.Error != "" || res.Score != tt.score || res.Verdict != want {
				t.Errorf("score %v verdict %s error %q, want %v %s", res.Score, res.Verdict, res.Error, tt.score, want)
			}
			if all := strings.Join(append(res.Hits, res.Misses...), "|"); !strings.Contains(all, tt.text) {
				t.Errorf("texts %q lack %q", all, tt.text)
			}
		})
	}
	t.Cleanup(func() {
		found := false
		for _, a := range auths() {
			found = found || a == "Bearer emb-key-0123"
		}
		if !found {
			t.Errorf("the key from the environment was never sent (saw %q)", auths())
		}
	})
}

// The grader target gives the embeddings when the entry names no server.
func TestSimilarThroughGraderTarget(t *testing.T) {
	t.Parallel()
	srv, _ := fakeEmbeddings(t, map[string][]float64{"a": {1, 0}, "b": {1, 0}})
	judge := &targets.Target{Name: "judge", Kind: targets.KindOpenAI, Redactor: &redact.Redactor{}, Settings: map[string]*targets.Setting{
		"base_url": {Key: "base_url", Value: srv.URL + "/v1"}, "model": {Key: "model", Value: "gpt"},
		"embedding_model": {Key: "embedding_model", Value: "emb"}}}
	spec := loadedSpec(t, "sim", "similar", `{"value": "a"}`)
	in := riskInput(riskCase(t.TempDir(), spec), "b")
	opts := &Options{Timeout: 10 * time.Second, Judges: func(*targets.Target, string) (providers.Provider, error) {
		return &fakeJudgeTarget{t: judge}, nil
	}}
	if res := Evaluate(t.Context(), in, opts).Results[0]; res.Score != 1 || res.Error != "" {
		t.Errorf("score %v error %q", res.Score, res.Error)
	}
	opts.Judges = func(*targets.Target, string) (providers.Provider, error) {
		return &fakeJudgeTarget{t: &targets.Target{Name: "claude", Kind: targets.KindAnthropic}}, nil
	}
	if res := Evaluate(t.Context(), in, opts).Results[0]; !strings.Contains(res.Error, "config.embedding_provider") {
		t.Errorf("error = %q, want how to name a server", res.Error)
	}
}

// fakeJudgeTarget is a provider that only has a target.
type fakeJudgeTarget struct {
	providers.Provider
	t *targets.Target
}

func (f *fakeJudgeTarget) Target() *targets.Target { return f.t }

func TestSimilarSettings(t *testing.T) {
	t.Parallel()
	tests := []struct{ settings, err string }{
		{`{}`, "similar needs `value`"},
		{`{"value": ""}`, "value: must not be empty"},
		{`{"value": "x", "threshold": -1}`, "threshold: must be a number from 0 to 1"},
		{`{"value": "x", "config": {"embedding_provider": {"base_url": "http://127.0.0.1:1"}}}`, "config.embedding_provider: names an embeddings server (base_url) but no `model`"},
		{`{"value": "x", "config": 3}`, "config: must be a mapping"},
	}
	typ, _ := suite.LookupEvaluator("similar")
	for _, tt := range tests {
		_, err := typ.Parse(&suite.EvaluatorSpec{Type: "similar", Settings: json.RawMessage(tt.settings)})
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error = %v, want %q", tt.settings, err, tt.err)
		}
	}
}

func TestCosine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{2, 0}, 1},
		{[]float64{1, 0}, []float64{0, 3}, 0},
		{[]float64{0, 0}, []float64{1, 1}, 0},
		{[]float64{1, 2, 3}, []float64{1, 2}, 1}, // the common length
	} {
		if got := cosine(tt.a, tt.b); got < tt.want-1e-12 || got > tt.want+1e-12 {
			t.Errorf("cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestSimilarValues: under GradingRules.SimilarValues a list of values (config.values) passes
// on the first value that passes, with its score, else fails with the best score; negated,
// it fails on the first value close enough, else passes with 1 - the closest's score.
// Without the rule the entry's one value is compared, as in 5.x.
func TestSimilarValues(t *testing.T) {
	t.Parallel()
	srv, _ := fakeEmbeddings(t, map[string][]float64{
		"answer": {1, 0, 0},
		"far":    {-1, 0, 0}, // cos -1
		"near":   {1, 1, 0},  // cos 0.7071
		"same":   {1, 0, 0},  // cos 1
	})
	pf := suite.GradingRulesOf(suite.Dialect5)
	pf.SimilarValues, pf.SimilarCosine, pf.ScoresAsReturned = true, true, true
	entry := func(values, extra string) string {
		first, _, _ := strings.Cut(strings.Trim(values, `[]"`), `"`)
		return `{"value": "` + first + `", "threshold": 0.7, "config": {"base_url": "` + srv.URL + `/v1", "model": "emb", "values": ` + values + `}` + extra + `}`
	}
	for _, tt := range []struct {
		name, settings string
		rules          suite.GradingRules
		score          float64
		verdict        string
	}{
		{"the first that passes", entry(`["far", "near", "same"]`, ""), pf, 0.7071067811865475, "pass"},
		{"none passes: the best", entry(`["far", "far"]`, ""), pf, -1, "fail"},
		{"none passes: the best of several", entry(`["far", "answer2"]`, ""), pf, 0, "fail"},
		{"not-: one close enough fails", entry(`["far", "near"]`, `, "negate": true`), pf, 1 - 0.7071067811865475, "fail"},
		{"not-: none close passes", entry(`["far", "answer2"]`, `, "negate": true`), pf, 1, "pass"},
		{"5.x compares the value alone", entry(`["far", "same"]`, ""), suite.GradingRulesOf(suite.Dialect5), 0, "fail"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := loadedSpec(t, "sim", "similar", tt.settings)
			c := riskCase(t.TempDir(), spec)
			c.Suite.Grading = tt.rules
			res := Evaluate(t.Context(), riskInput(c, "answer"), &Options{Timeout: 10 * time.Second, Redactor: &redact.Redactor{}}).Results[0]
			if res.Error != "" || math.Abs(res.Score-tt.score) > 1e-9 || res.Verdict != tt.verdict {
				t.Errorf("score %v verdict %s error %q, want %v %s", res.Score, res.Verdict, res.Error, tt.score, tt.verdict)
			}
		})
	}
}

// TestPromptfooSimilarList: a promptfoo config's similar with a list of values loads and is
// compared with each value; a 5.x file's list is a load error, as before.
func TestPromptfooSimilarList(t *testing.T) {
	t.Parallel()
	srv, _ := fakeEmbeddings(t, map[string][]float64{"answer": {1, 0, 0}, "far": {-1, 0, 0}, "same": {1, 0, 0}})
	dir := t.TempDir()
	assert := "\n    assert:\n      - type: similar\n        value: [far, same]\n        threshold: 0.9\n"
	file := writeFile(t, dir, "promptfooconfig.yaml", "providers: [openai:chat:m]\nprompts: ['{{q}}']\ntests:\n  - vars: {q: hi}"+assert)
	s := suite.Load(file, suite.LoadOptions{Cwd: dir})
	if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
		t.Fatalf("load: %d cases, %v", len(s.Cases), s.Diagnostics)
	}
	judge := &targets.Target{Name: "judge", Kind: targets.KindOpenAI, Redactor: &redact.Redactor{}, Settings: map[string]*targets.Setting{
		"base_url": {Key: "base_url", Value: srv.URL + "/v1"}, "model": {Key: "model", Value: "emb"}}}
	opts := &Options{Timeout: 10 * time.Second, Redactor: &redact.Redactor{},
		Judges: func(*targets.Target, string) (providers.Provider, error) { return &fakeJudgeTarget{t: judge}, nil }}
	res := Evaluate(t.Context(), riskInput(s.Cases[0], "answer"), opts).Results[0]
	if res.Error != "" || res.Score != 1 || res.Verdict != "pass" {
		t.Errorf("score %v verdict %s error %q, want 1 pass (the second value)", res.Score, res.Verdict, res.Error)
	}
	file5 := writeFile(t, dir, "v5.eval.yaml", "prompts: ['{{q}}']\ntests:\n  - id: a\n    vars: {q: hi}"+assert)
	if s5 := suite.Load(file5, suite.LoadOptions{Cwd: dir}); !suite.HasErrors(s5.Diagnostics) {
		t.Errorf("a 5.x file loaded a similar list")
	}
}
