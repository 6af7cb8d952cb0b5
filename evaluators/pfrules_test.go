package evaluators

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// pfRules are the grading rules the promptfoo front-end sets.
func pfRules() suite.GradingRules {
	g := suite.GradingRulesOf(suite.Dialect5)
	g.ScoresAsReturned, g.ZeroWeightPasses, g.NegateScriptVerdict, g.VerdictOfResults, g.NoGradersPass = true, true, true, true, true
	g.PythonObjectThreshold = true
	return g
}

func contains(value string, weight float64, extra string) *suite.EvaluatorSpec {
	return &suite.EvaluatorSpec{Type: "contains", Weight: weight, WeightSet: true,
		Settings: json.RawMessage(`{"value": "` + value + `"` + extra + `}`)}
}

// TestPromptfooRules: promptfoo's scoring of a test, rule by rule, against the rules 4.x and
// 5.x files keep (the zero value of each).
func TestPromptfooRules(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name      string
		specs     []*suite.EvaluatorSpec
		threshold *float64
		rules     suite.GradingRules
		score     float64
		passed    *bool
		verdicts  []string
	}{
		{name: "every result passed", specs: []*suite.EvaluatorSpec{contains("High", 1, ""), contains("risk", 1, "")},
			rules: pfRules(), score: 1, passed: &yes, verdicts: []string{"pass", "pass"}},
		{name: "one failed: the test fails", specs: []*suite.EvaluatorSpec{contains("High", 3, ""), contains("Low", 1, "")},
			rules: pfRules(), score: 0.75, passed: &no, verdicts: []string{"pass", "fail"}},
		{name: "a threshold of its own: the score decides", specs: []*suite.EvaluatorSpec{contains("High", 3, ""), contains("Low", 1, "")},
			threshold: new(0.5), rules: pfRules(), score: 0.75, passed: nil, verdicts: []string{"pass", "fail"}},
		{name: "weight 0 reported passing", specs: []*suite.EvaluatorSpec{contains("High", 1, ""), contains("Low", 0, "")},
			rules: pfRules(), score: 1, passed: &yes, verdicts: []string{"pass", "pass"}},
		{name: "only weight 0: score 0, passed", specs: []*suite.EvaluatorSpec{contains("Low", 0, "")},
			rules: pfRules(), score: 0, passed: &yes, verdicts: []string{"pass"}},
		{name: "weight 0 after not-", specs: []*suite.EvaluatorSpec{contains("High", 0, `, "negate": true`)},
			rules: pfRules(), score: 0, passed: &yes, verdicts: []string{"pass"}},
		{name: "no graders: 1 and passed", rules: pfRules(), score: 1, passed: &yes},
		{name: "4.x: weight 0 keeps its verdict, no Passed", specs: []*suite.EvaluatorSpec{contains("High", 1, ""), contains("Low", 0, "")},
			rules: suite.GradingRulesOf(suite.Dialect4), score: 1, passed: nil, verdicts: []string{"pass", "fail"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := riskCase(t.TempDir(), tt.specs...)
			c.Suite.Grading, c.Threshold = tt.rules, tt.threshold
			out := Evaluate(t.Context(), riskInput(c, "High risk"), &Options{})
			if out.Score != tt.score {
				t.Errorf("score %v, want %v", out.Score, tt.score)
			}
			if (out.Passed == nil) != (tt.passed == nil) || out.Passed != nil && *out.Passed != *tt.passed {
				t.Errorf("passed %v, want %v", ptr(out.Passed), ptr(tt.passed))
			}
			if tt.specs == nil {
				return
			}
			var verdicts []string
			for _, r := range out.Results {
				verdicts = append(verdicts, r.Verdict)
			}
			if len(verdicts) != len(tt.verdicts) {
				t.Fatalf("verdicts %q, want %q", verdicts, tt.verdicts)
			}
			for i := range verdicts {
				if verdicts[i] != tt.verdicts[i] {
					t.Errorf("verdicts %q, want %q", verdicts, tt.verdicts)
				}
			}
		})
	}
}

func ptr(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// TestPromptfooScriptScores: a script's number is kept as returned (and the mean with it), and
// not- flips only its verdict.
func TestPromptfooScriptScores(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	js := func(code string, negate bool) *suite.EvaluatorSpec {
		extra := ""
		if negate {
			extra = `, "negate": true`
		}
		return &suite.EvaluatorSpec{Type: "javascript", Weight: 1, Settings: json.RawMessage(`{"value": "` + code + `"` + extra + `}`)}
	}
	for _, tt := range []struct {
		name    string
		spec    *suite.EvaluatorSpec
		rules   suite.GradingRules
		score   float64
		verdict string
	}{
		{"above 1 kept", js("1.5", false), pfRules(), 1.5, results.BandPass},
		{"negative kept", js("-0.5", false), pfRules(), -0.5, results.BandFail},
		{"not- flips the verdict only", js("0.8", true), pfRules(), 0.8, results.BandFail},
		{"not- of false scores by the verdict", js("false", true), pfRules(), 1, results.BandPass},
		{"5.x clamps", js("1.5", false), suite.GradingRulesOf(suite.Dialect5), 1, results.BandPass},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := riskCase(t.TempDir(), tt.spec)
			c.Suite.Grading = tt.rules
			out := Evaluate(t.Context(), riskInput(c, "High risk"), &Options{})
			if r := out.Results[0]; r.Score != tt.score || r.Verdict != tt.verdict || out.Score != tt.score {
				t.Errorf("result %v %s, case %v; want %v %s", r.Score, r.Verdict, out.Score, tt.score, tt.verdict)
			}
		})
	}
}

// TestParsePFRubric: promptfoo's reading of a grader's verdict (runJsonGradingPrompt), its
// defaults, JavaScript's Number() of a score that is not a number, and the assertion's own
// threshold.
func TestParsePFRubric(t *testing.T) {
	t.Parallel()
	half, one := 0.5, 1.0
	for _, tt := range []struct {
		name, reply string
		threshold   *float64
		score       float64
		pass, err   bool
	}{
		{"pass and score", `{"reason": "ok", "pass": true, "score": 0.9}`, nil, 0.9, true, false},
		{"pass only", `{"pass": false}`, nil, 0, false, false},
		{"score only passes", `{"score": 0.3}`, nil, 0.3, true, false},
		{"score above 1 kept", `{"pass": true, "score": 1.5}`, nil, 1.5, true, false},
		{"first object in prose", "Here: {\"pass\": true, \"score\": 0.5} done {\"pass\": false}", nil, 0.5, true, false},
		{"no JSON", "no verdict here", nil, 0, false, true},
		{"pass as text", `{"pass": "Yes"}`, nil, 1, true, false},
		{"pass as other text fails", `{"pass": "false", "score": 0.7}`, nil, 0.7, false, false},
		{"pass as a number fails", `{"pass": 1}`, nil, 0, false, false},
		{"score as text", `{"pass": true, "score": " 0.25 "}`, nil, 0.25, true, false},
		{"score as blank text is 0", `{"pass": true, "score": ""}`, nil, 0, true, false},
		{"score null is 0", `{"pass": true, "score": null}`, nil, 0, true, false},
		{"score not a number scores by pass", `{"pass": false, "score": "high"}`, nil, 0, false, false},
		{"score object scores by pass", `{"score": {"x": 1}}`, nil, 1, true, false},
		{"score infinity scores by pass", `{"score": "Infinity"}`, nil, 1, true, false},
		{"threshold met", `{"pass": true, "score": 0.6}`, &half, 0.6, true, false},
		{"threshold missed", `{"pass": true, "score": 0.4}`, &half, 0.4, false, false},
		{"threshold with a failing pass", `{"pass": false, "score": 0.9}`, &half, 0.9, false, false},
		{"threshold on the default score", `{"pass": true}`, &one, 1, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := pfRubricReader(tt.threshold)(tt.reply)
			if err != nil {
				t.Fatal(err)
			}
			if (v.err != nil) != tt.err {
				t.Fatalf("err %v, want error %v", v.err, tt.err)
			}
			if tt.err {
				return
			}
			if *v.returned != tt.score || v.forcePass != tt.pass || v.forceFail == tt.pass {
				t.Errorf("score %v pass %v/%v, want %v %v", *v.returned, v.forcePass, v.forceFail, tt.score, tt.pass)
			}
		})
	}
}

// TestPythonObjectThreshold: promptfoo fails a python object below the assertion threshold.
func TestPythonObjectThreshold(t *testing.T) {
	t.Parallel()
	needTool(t, "python3")
	py := &suite.EvaluatorSpec{Type: "python", Weight: 1, Settings: json.RawMessage(`{"value": "{'pass': True, 'score': 0.2}", "threshold": 0.5}`)}
	for _, tt := range []struct {
		name    string
		rules   suite.GradingRules
		verdict string
	}{{"promptfoo", pfRules(), results.BandFail}, {"5.x", suite.GradingRulesOf(suite.Dialect5), results.BandPass}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := riskCase(t.TempDir(), py)
			c.Suite.Grading = tt.rules
			if r := Evaluate(t.Context(), riskInput(c, "x"), &Options{}).Results[0]; r.Verdict != tt.verdict || r.Score != 0.2 {
				t.Errorf("%s %v, want %s 0.2 (%s)", r.Verdict, r.Score, tt.verdict, r.Reasoning)
			}
		})
	}
}

// TestPromptfooRubricThresholdNegate: an llm-rubric's own threshold and its negation under
// promptfoo's rules (pass = pass and score >= threshold, then not- flips pass and scores
// 1 - score), and the score kept above 1; 5.x rules read the same reply their own way.
func TestPromptfooRubricThresholdNegate(t *testing.T) {
	t.Parallel()
	rubric := func(reply, config string, negate bool) (*fakeJudge, *suite.EvaluatorSpec) {
		settings := `{}`
		if negate {
			settings = `{"negate": true}`
		}
		return &fakeJudge{name: "j", reply: reply}, &suite.EvaluatorSpec{Type: suite.TypeLLMJudge, Weight: 1, JudgeCommonKeys: true,
			Criteria: "Mentions a fox.", Config: json.RawMessage(config), Settings: json.RawMessage(settings)}
	}
	pf := pfRules()
	pf.PromptfooRubric, pf.GraderErrorFails = true, true
	for _, tt := range []struct {
		name, reply, config string
		negate              bool
		rules               suite.GradingRules
		score               float64
		verdict             string
	}{
		{"below its threshold fails", `{"pass": true, "score": 0.4}`, `{"threshold": 0.5}`, false, pf, 0.4, results.BandFail},
		{"at its threshold passes", `{"pass": true, "score": 0.5}`, `{"threshold": 0.5}`, false, pf, 0.5, results.BandPass},
		{"not- of a pass", `{"pass": true, "score": 0.9}`, `{}`, true, pf, 1 - 0.9, results.BandFail},
		{"not- of a fail", `{"pass": false, "score": 0.25}`, `{}`, true, pf, 0.75, results.BandPass},
		{"not- of one below its threshold passes", `{"pass": true, "score": 0.4}`, `{"threshold": 0.5}`, true, pf, 0.6, results.BandPass},
		{"above 1 kept", `{"pass": true, "score": 1.5}`, `{}`, false, pf, 1.5, results.BandPass},
		{"not- of above 1 is 0", `{"pass": true, "score": 1.5}`, `{}`, true, pf, 0, results.BandFail},
		{"5.x clamps above 1", `{"pass": true, "score": 1.5}`, `{}`, false, suite.GradingRulesOf(suite.Dialect5), 1, results.BandPass},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j, spec := rubric(tt.reply, tt.config, tt.negate)
			c := riskCase(t.TempDir(), spec)
			c.Suite.Grading = tt.rules
			out := Evaluate(t.Context(), riskInput(c, "High risk"), judgeOpts(j, nil))
			r := out.Results[0]
			if math.Abs(r.Score-tt.score) > 1e-9 || r.Verdict != tt.verdict || r.Error != "" {
				t.Errorf("result %v %s %q, want %v %s", r.Score, r.Verdict, r.Error, tt.score, tt.verdict)
			}
		})
	}
}
