package runner

import (
	"testing"

	"github.com/agentv/action/suite"
)

// TestCaseThreshold checks the score a case passes at: its own `execution.threshold`, else
// its suite's, else the run's.
func TestCaseThreshold(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		c    *suite.Case
		want float64
		own  bool
	}{
		{"run", &suite.Case{Suite: &suite.Suite{}}, 0.8, false},
		{"suite", &suite.Case{Suite: &suite.Suite{Threshold: f(0.5)}}, 0.5, true},
		{"suite's equal to the run's is still its own", &suite.Case{Suite: &suite.Suite{Threshold: f(0.8)}}, 0.8, true},
		{"case wins", &suite.Case{Suite: &suite.Suite{Threshold: f(0.5)}, Threshold: f(0.9)}, 0.9, true},
		{"case threshold 0", &suite.Case{Threshold: f(0)}, 0, true},
		{"no suite", &suite.Case{}, 0.8, false},
		{"no case", nil, 0.8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, own := caseThreshold(tt.c, 0.8); got != tt.want || own != tt.own {
				t.Errorf("caseThreshold = %v, %v; want %v, %v", got, own, tt.want, tt.own)
			}
		})
	}
}
