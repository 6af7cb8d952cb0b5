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
	c := tally(recs)
	if c.Total != 3 || c.Passed != 1 || c.Failed != 1 || c.Errors != 1 || c.MeanScore != 0.5 {
		t.Errorf("Tally = %+v", c)
	}
}

// TestDecideOwnThresholds checks the reason of a run whose eval files set thresholds of
// their own: it names them beside the run's, leaving out one equal to the run's.
func TestDecideOwnThresholds(t *testing.T) {
	t.Parallel()
	own := func(ths ...float64) []OwnThreshold {
		var c Counts
		for _, th := range ths {
			c.addOwnThreshold(th)
		}
		return c.OwnThresholds
	}
	tests := []struct {
		name string
		own  []OwnThreshold
		want string
	}{
		{"none", nil, "2 failed cases below case threshold 0.80 (max-failures 0)"},
		{"the run's own", own(0.8, 0.8), "2 failed cases below case threshold 0.80 (max-failures 0)"},
		{"one other", own(0.6, 0.6, 0.6), "2 failed cases below their case threshold (0.80; 3 cases use their file's 0.60; max-failures 0)"},
		{"several, sorted", own(0.9, 0.6, 0.8, 0.6), "2 failed cases below their case threshold (0.80; 2 cases use their file's 0.60, 1 case uses its file's 0.90; max-failures 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Decide(Counts{Total: 5, Passed: 3, Failed: 2, OwnThresholds: tt.own}, Defaults())
			if d.Outcome != Fail || d.Reason != tt.want {
				t.Errorf("Decide = %s %q, want fail %q", d.Outcome, d.Reason, tt.want)
			}
		})
	}
	recs := []*results.Record{{Verdict: results.VerdictPass, Score: 1, CaseThreshold: new(0.6)}, {Verdict: results.VerdictFail}}
	if got := tally(recs).OwnThresholds; len(got) != 1 || got[0] != (OwnThreshold{0.6, 1}) {
		t.Errorf("Tally's own thresholds = %v, want one case at 0.6", got)
	}
}

// A run's mean is the same whatever order its cases finished in: with several workers they
// finish in any order, and plain float addition moved the mean's last digit between reruns.
func TestTallyMeanOrderIndependent(t *testing.T) {
	t.Parallel()
	scores := []float64{0.1, 0.2, 0.3, 0.7, 1.0 / 3, 0.9}
	var fwd, back []*results.Record
	for i := range scores {
		fwd = append(fwd, &results.Record{Verdict: results.VerdictFail, Score: scores[i]})
		back = append(back, &results.Record{Verdict: results.VerdictFail, Score: scores[len(scores)-1-i]})
	}
	if a, b := tally(fwd).MeanScore, tally(back).MeanScore; a != b {
		t.Errorf("mean %v in one order, %v in the other", a, b)
	}
}

// tally counts records as the command counts its cases.
func tally(recs []*results.Record) Counts {
	return TallyOf(recs, func(r *results.Record) (results.Verdict, float64, *float64) {
		return r.Verdict, r.Score, r.CaseThreshold
	})
}
