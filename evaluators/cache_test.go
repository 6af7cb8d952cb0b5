package evaluators

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/suite"
)

// entriesUnder counts the response cache's entry files below dir.
func entriesUnder(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && filepath.Ext(p) == ".json" {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestJudgesStoreOnlyVerdicts: every kind of LLM judge, behind the response cache, stores a
// reply only when it reads a verdict in it. A reply that is no verdict (a JSON object without
// one too) is not stored, so the next ask reaches the judge instead of replaying it.
func TestJudgesStoreOnlyVerdicts(t *testing.T) {
	t.Parallel()
	rubrics := `{"rubrics": ["Mentions High"]}`
	for _, tc := range []struct {
		name string
		v4   bool
		spec func() *suite.EvaluatorSpec
		good string // a reply its evaluator reads as a verdict
	}{
		{name: "2.5 llm_judge", spec: func() *suite.EvaluatorSpec {
			return &suite.EvaluatorSpec{Name: "j", Type: suite.TypeLLMJudge, Weight: 1}
		}, good: `{"score": 1}`},
		{name: "2.5 rubrics", spec: func() *suite.EvaluatorSpec {
			return &suite.EvaluatorSpec{Name: "j", Type: suite.TypeLLMJudge, Weight: 1, Settings: json.RawMessage(rubrics)}
		}, good: `{"checks": [{"id": "rubric-1", "satisfied": true}]}`},
		{name: "2.5 composite aggregator", spec: func() *suite.EvaluatorSpec {
			return &suite.EvaluatorSpec{Name: "c", Type: "composite", Weight: 1, Settings: json.RawMessage(`{"aggregator": {"type": "llm_judge"}}`),
				Members: []*suite.EvaluatorSpec{faSpec(`{"fields": [{"path": "riskLevel"}]}`)}}
		}, good: `{"score": 1}`},
		{name: "4.x llm-grader", v4: true, spec: func() *suite.EvaluatorSpec {
			return &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, JudgeCommonKeys: true}
		}, good: `{"score": 1}`},
		{name: "4.x llm-grader rubrics", v4: true, spec: func() *suite.EvaluatorSpec {
			return &suite.EvaluatorSpec{Name: "g", Type: suite.TypeLLMJudge, Weight: 1, JudgeCommonKeys: true, Settings: json.RawMessage(rubrics)}
		}, good: `{"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "yes"}], "overall_reasoning": "ok"}`},
		{name: "4.x composite aggregator", v4: true, spec: func() *suite.EvaluatorSpec {
			return &suite.EvaluatorSpec{Name: "c", Type: "composite", Weight: 1, JudgeCommonKeys: true,
				Settings: json.RawMessage(`{"aggregator": {"type": "llm_judge"}}`),
				Members:  []*suite.EvaluatorSpec{faSpec(`{"fields": [{"path": "riskLevel"}]}`)}}
		}, good: `{"score": 1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			j := &fakeJudge{name: "judge", reply: `{"note": "let me look first"}`}
			cached, err := cache.Open(cache.Options{Dir: dir, Mode: cache.ReadWrite}).Wrap(j)
			if err != nil {
				t.Fatal(err)
			}
			c := riskCase(t.TempDir(), tc.spec())
			if tc.v4 {
				c.Suite.Grading = suite.GradingRulesOf(suite.Dialect4)
			}
			run := func() {
				Evaluate(t.Context(), riskInput(c, `{"riskLevel": "High"}`), judgeOpts(cached, nil))
			}
			run()
			asked := len(j.requests())
			if asked == 0 || entriesUnder(t, dir) != 0 {
				t.Fatalf("a reply that is no verdict: %d asks, %d entries stored; want asks and none stored", asked, entriesUnder(t, dir))
			}
			run()
			if again := len(j.requests()) - asked; again != asked {
				t.Errorf("the next run asked %d times, want %d: a stored reply answered it", again, asked)
			}
			j.reply = tc.good
			before := len(j.requests())
			run()
			run()
			if n := len(j.requests()) - before; n != 1 || entriesUnder(t, dir) != 1 {
				t.Errorf("a verdict: %d asks over two runs and %d entries, want 1 and 1", n, entriesUnder(t, dir))
			}
		})
	}
}
