package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

func TestAssertSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings string
		score    float64
		verdict  string
		members  int
	}{
		{name: "all pass", settings: `{"assert": [{"type": "contains", "value": "High"}, {"type": "icontains", "value": "risk"}]}`,
			score: 1, verdict: results.BandPass, members: 2},
		{name: "one fails: all must pass", settings: `{"assert": [{"type": "contains", "value": "High"}, {"type": "contains", "value": "Low", "weight": 3}]}`,
			score: 0.25, verdict: results.BandFail, members: 2},
		{name: "threshold decides", settings: `{"threshold": 0.5, "assert": [{"type": "contains", "value": "High", "weight": 2}, {"type": "contains", "value": "Low"},
			{"type": "equals", "value": "nope"}]}`, score: 0.5, verdict: results.BandPass, members: 3},
		{name: "threshold not met", settings: `{"threshold": 0.9, "assert": [{"type": "contains", "value": "High"}, {"type": "contains", "value": "Low"}]}`,
			score: 0.5, verdict: results.BandFail, members: 2},
		{name: "a weight-0 member does not decide", settings: `{"assert": [{"type": "contains", "value": "High"}, {"type": "contains", "value": "Low", "weight": 0}]}`,
			score: 1, verdict: results.BandPass, members: 2},
		{name: "all weights 0 score 0", settings: `{"assert": [{"type": "contains", "value": "High", "weight": 0}]}`,
			score: 0, verdict: results.BandPass, members: 1},
		{name: "nested set", settings: `{"assert": [{"type": "assert-set", "threshold": 0.5, "assert": [{"type": "contains", "value": "High"}, {"type": "contains", "value": "x"}]},
			{"type": "starts-with", "value": "High"}]}`, score: 0.75, verdict: results.BandPass, members: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := &suite.EvaluatorSpec{Name: "set", Type: "assert-set", Weight: 1, Settings: json.RawMessage(tt.settings)}
			in := riskInput(riskCase(t.TempDir(), spec), "High risk")
			in.Case.Suite.Grading = suite.GradingRulesOf(suite.Dialect4)
			res := Evaluate(t.Context(), in, &Options{}).Results[0]
			if res.Error != "" || res.Score != tt.score || res.Verdict != tt.verdict || len(res.EvaluatorResults) != tt.members {
				t.Errorf("score %v verdict %s error %q members %d, want %v %s %d", res.Score, res.Verdict, res.Error, len(res.EvaluatorResults), tt.score, tt.verdict, tt.members)
			}
		})
	}
}

func TestAssertSetMembersFromTheLoader(t *testing.T) {
	t.Parallel()
	members := []*suite.EvaluatorSpec{
		{Name: "has-high", Type: "contains", Weight: 1, Settings: json.RawMessage(`{"value": "High"}`)},
		{Name: "has-low", Type: "contains", Weight: 1, Settings: json.RawMessage(`{"value": "Low"}`)},
	}
	spec := &suite.EvaluatorSpec{Name: "set", Type: "assert-set", Weight: 1, Settings: json.RawMessage(`{"threshold": 0.5}`), Members: members}
	in := riskInput(riskCase(t.TempDir(), spec), "High risk")
	res := Evaluate(t.Context(), in, &Options{}).Results[0]
	if res.Score != 0.5 || res.Verdict != results.BandPass || res.EvaluatorResults[1].Name != "has-low" {
		t.Errorf("got %+v", res)
	}
}

func TestAssertSetSettings(t *testing.T) {
	t.Parallel()
	tests := []struct{ settings, err string }{
		{`{}`, "assert-set needs `assert`"},
		{`{"assert": []}`, "assert: must list at least one"},
		{`{"assert": "x"}`, "assert: must be a list"},
		{`{"assert": [3]}`, "assert[0]: an assertion must be a mapping"},
		{`{"assert": [{"value": "x"}]}`, "assert[0]: an assertion needs a `type`"},
		{`{"assert": [{"type": "containz"}]}`, `assert[0].type: unknown assertion type "containz"`},
		{`{"assert": [{"type": "contains", "value": "a"}, {"type": "contains"}]}`, "assert[1]: contains needs"},
		{`{"assert": [{"type": "javascript", "value": "1", "threshold": 3}]}`, "assert[0].threshold: must be a number from 0 to 1"},
		{`{"assert": [{"type": "contains", "value": "a", "weight": -1}]}`, "assert[0].weight: must be a number >= 0"},
		{`{"threshold": "high", "assert": [{"type": "contains", "value": "a"}]}`, "threshold: must be a number from 0 to 1"},
	}
	typ, _ := suite.LookupEvaluator("assert-set")
	for _, tt := range tests {
		_, err := typ.Parse(&suite.EvaluatorSpec{Type: "assert-set", Settings: json.RawMessage(tt.settings)})
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error = %v, want %q", tt.settings, err, tt.err)
		}
	}
}

func TestAssertSetConfigInherited(t *testing.T) {
	t.Parallel()
	needTool(t, "node")
	spec := &suite.EvaluatorSpec{Name: "set", Type: "assert-set", Weight: 1, Settings: json.RawMessage(`{"config": {"a": 1, "b": 1},
		"assert": [{"type": "javascript", "value": "context.config.a === 1 && context.config.b === 2", "config": {"b": 2}}]}`)}
	typ, _ := suite.LookupEvaluator("assert-set")
	parsed, err := typ.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Parsed = parsed
	in := riskInput(riskCase(t.TempDir(), spec), "High risk")
	if res := Evaluate(t.Context(), in, &Options{}).Results[0]; res.Score != 1 {
		t.Errorf("score %v, misses %q", res.Score, res.Misses)
	}
}

func FuzzAssertSetSettings(f *testing.F) {
	f.Add(`{"assert": [{"type": "contains", "value": "a"}]}`)
	f.Add(`{"threshold": 0.5, "config": {"x": 1}, "assert": [{"type": "assert-set", "assert": [{"type": "regex", "value": "a+"}]}]}`)
	f.Add(`{"assert": [{"type": "javascript", "value": "file://x.js:f"}, {"type": "python", "value": 1}]}`)
	typ, _ := suite.LookupEvaluator("assert-set")
	f.Fuzz(func(t *testing.T, settings string) {
		if !json.Valid([]byte(settings)) {
			return
		}
		_, _ = typ.Parse(&suite.EvaluatorSpec{Type: "assert-set", Settings: json.RawMessage(settings)}) // must not panic
	})
}
