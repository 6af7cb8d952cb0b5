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
	}{
		{"run", &suite.Case{Suite: &suite.Suite{}}, 0.8},
		{"suite", &suite.Case{Suite: &suite.Suite{Threshold: f(0.5)}}, 0.5},
		{"case wins", &suite.Case{Suite: &suite.Suite{Threshold: f(0.5)}, Threshold: f(0.9)}, 0.9},
		{"case threshold 0", &suite.Case{Threshold: f(0)}, 0},
		{"no suite", &suite.Case{}, 0.8},
		{"no case", nil, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := caseThreshold(tt.c, 0.8); got != tt.want {
				t.Errorf("caseThreshold = %v, want %v", got, tt.want)
			}
		})
	}
}
