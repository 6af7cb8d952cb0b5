package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/stats"
)

func TestRegressionGate(t *testing.T) {
	t.Parallel()
	zero, two := 0, 2
	drop := 0.05
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("c%d", i)
	}
	tests := []struct {
		name string
		b    *Baseline
		o    Options
		want Outcome
		why  string
	}{
		{"no baseline, gate set", nil, Options{MaxRegressions: &zero, MaxMeanDrop: &drop}, Pass, "1 of 1 cases passed"},
		{"regressions reported only", &Baseline{Regressions: []string{"a"}, Compared: 1}, Options{}, Pass, "1 of 1 cases passed"},
		{"within max-regressions", &Baseline{Regressions: []string{"a", "b"}, Compared: 2}, Options{MaxRegressions: &two}, Pass, ""},
		{"over max-regressions", &Baseline{Regressions: []string{"a", "b"}, Compared: 2}, Options{MaxRegressions: &zero}, Fail,
			"2 cases regressed against the baseline (max-regressions 0): a, b"},
		{"many listed with a count", &Baseline{Regressions: many, Compared: 12}, Options{MaxRegressions: &zero}, Fail,
			"12 cases regressed against the baseline (max-regressions 0): c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 2 more"},
		{"mean fell, interval below zero", &Baseline{MeanDelta: stats.Interval{Estimate: -0.1, Lo: -0.15, Hi: -0.02}, Compared: 9}, Options{MaxMeanDrop: &drop}, Fail,
			"mean score fell 0.100 against the baseline (95% interval -0.150 to -0.020), more than max-mean-drop 0.05"},
		{"mean fell, interval crosses zero", &Baseline{MeanDelta: stats.Interval{Estimate: -0.1, Lo: -0.2, Hi: 0.01}, Compared: 9}, Options{MaxMeanDrop: &drop}, Pass, ""},
		{"mean fell less than the drop", &Baseline{MeanDelta: stats.Interval{Estimate: -0.04, Lo: -0.06, Hi: -0.02}, Compared: 9}, Options{MaxMeanDrop: &drop}, Pass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.o.CaseThreshold = 0.8
			d := Decide(Counts{Total: 1, Passed: 1, MeanScore: 1, Baseline: tt.b}, tt.o)
			if d.Outcome != tt.want || !strings.Contains(d.Reason, tt.why) {
				t.Errorf("Decide = %+v, want %s with %q", d, tt.want, tt.why)
			}
		})
	}
}
