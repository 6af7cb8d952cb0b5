package evaluators

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/results"
)

// TestMembersJSON pins what composite aggregators are given: the members by name, in order.
func TestMembersJSON(t *testing.T) {
	t.Parallel()
	children := []results.EvaluatorResult{
		{Name: "zeta", Score: 1, Weight: 2, Verdict: results.BandPass, Hits: []string{"ok"}, Reasoning: "fine"},
		{Name: "alpha <&>", Score: math.NaN(), Weight: 1, Verdict: results.BandFail, Misses: []string{"no"}},
	}
	tests := []struct {
		name   string
		render func([]results.EvaluatorResult) []byte
		in     []results.EvaluatorResult
		want   string
	}{
		{"2.5 members", membersJSON, children,
			`{"zeta":{"score":1,"weight":2,"verdict":"pass","hits":["ok"],"misses":[],"reasoning":"fine"},` +
				`"alpha <&>":{"score":0,"weight":1,"verdict":"fail","hits":[],"misses":["no"],"reasoning":""}}`},
		{"4.x members", v4MembersJSON, children,
			`{"zeta":{"score":1,"verdict":"pass","assertions":[{"text":"ok","passed":true}],"expectedAspectCount":1},` +
				`"alpha <&>":{"score":0,"verdict":"fail","assertions":[{"text":"no","passed":false}],"expectedAspectCount":1}}`},
		{"no members", membersJSON, nil, `{}`},
		{"no 4.x members", v4MembersJSON, nil, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, string(tt.render(tt.in))); diff != "" {
				t.Errorf("members JSON (-want +got):\n%s", diff)
			}
		})
	}
}
