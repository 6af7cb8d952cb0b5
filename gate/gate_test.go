package gate

import (
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	half := 0.5
	tests := []struct {
		name string
		c    Counts
		o    Options
		want Outcome
		why  string
		exit int
	}{
		{"all pass", Counts{Total: 3, Passed: 3, MeanScore: 0.9}, Defaults(), Pass, "3 of 3", 0},
		{"one failure fails by default", Counts{Total: 3, Passed: 2, Failed: 1}, Defaults(), Fail, "1 failed case", 1},
		{"failures allowed", Counts{Total: 3, Passed: 2, Failed: 1, MeanScore: 0.9}, Options{CaseThreshold: 0.8, MaxFailures: 1}, Pass, "2 of 3 cases passed; 1 failure within max-failures 1", 0},
		{"errors allowed", Counts{Total: 4, Passed: 1, Failed: 1, Errors: 2}, Options{CaseThreshold: 0.8, MaxFailures: 1, MaxErrors: 5}, Pass,
			"1 of 4 cases passed; 1 failure within max-failures 1; 2 errored cases within max-errors 5", 0},
		{"errors beat failures", Counts{Total: 3, Failed: 1, Errors: 1}, Defaults(), Error, "1 errored case", 3},
		{"invalid beats everything", Counts{Total: 3, Errors: 3, Problems: []string{"a.yaml:1:1: bad"}}, Defaults(), Invalid, "a.yaml:1:1: bad", 2},
		{"several problems", Counts{Problems: []string{"x", "y"}}, Defaults(), Invalid, "2 configuration or input problems; first: x", 2},
		{"nothing ran", Counts{}, Defaults(), Invalid, "no eval case", 2},
		{"min score", Counts{Total: 2, Passed: 2, MeanScore: 0.4}, Options{CaseThreshold: 0.3, MinScore: &half}, Fail, "mean score 0.400 below min-score 0.500", 1},
		{"skipped", Counts{SkipReason: "fork"}, Defaults(), Skipped, "fork", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Decide(tt.c, tt.o)
			if d.Outcome != tt.want || !strings.Contains(d.Reason, tt.why) {
				t.Errorf("Decide = %+v, want %s with reason containing %q", d, tt.want, tt.why)
			}
			if got := d.Outcome.ExitCode(false); got != tt.exit {
				t.Errorf("exit = %d, want %d", got, tt.exit)
			}
		})
	}
	if Skipped.ExitCode(true) != ExitFail {
		t.Error("fail-on-skip must make skipped exit 1")
	}
}

func TestTally(t *testing.T) {
	t.Parallel()
	recs := []*results.Record{
		{Verdict: results.VerdictPass, Score: 1},
		{Verdict: results.VerdictFail, Score: 0.5},
		{Verdict: results.VerdictError, Score: 0.9}, // errored cases count 0 in the mean
	}
	c := Tally(recs)
	if c.Total != 3 || c.Passed != 1 || c.Failed != 1 || c.Errors != 1 || c.MeanScore != 0.5 {
		t.Errorf("Tally = %+v", c)
	}
}
