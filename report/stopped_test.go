package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
)

// A run that stopped early (cancelled or killed) says on every surface how many of its
// cases finished; a run that finished says how many cases it had.
func TestHeadlineOfPlanned(t *testing.T) {
	t.Parallel()
	recs := []*results.Record{{EvalID: "a", Score: 1, Verdict: results.VerdictPass, File: "s.yaml", Line: 2}}
	tests := []struct {
		name        string
		counts      gate.Counts
		md, console string
	}{
		{"finished", gate.Counts{Total: 1, Passed: 1, Planned: 1}, "**1 case**", "Total eval cases: 1\n"},
		{"cancelled", gate.Counts{Total: 1, Passed: 1, Planned: 1200, Stopped: true}, "**1 of 1,200 cases**", "Total eval cases: 1 of 1200\n"},
		{"cancelled while loading", gate.Counts{Total: 1, Passed: 1, Planned: 40, PlannedAtLeast: true, Stopped: true},
			"**1 of at least 40 cases**", "Total eval cases: 1 of at least 40\n"},
		{"killed", gate.Counts{Total: 1, Passed: 1, Stopped: true}, "**1 of an unknown number of cases**", "Total eval cases: 1 of an unknown number of\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.counts
			c.Problems = []string{"run cancelled"}
			run := &Run{Records: recs, Counts: c, Decision: gate.Decide(c, gate.Defaults()), Gate: gate.Defaults()}
			for name, s := range map[string]string{"summary": Summary(run), "comment": Comment(run, "<!-- m -->")} {
				if !strings.Contains(s, tt.md) {
					t.Errorf("%s lacks %q:\n%s", name, tt.md, s)
				}
			}
			var b bytes.Buffer
			Console(&b, run, false)
			if !strings.Contains(b.String(), tt.console) {
				t.Errorf("console lacks %q:\n%s", tt.console, b.String())
			}
		})
	}
}
