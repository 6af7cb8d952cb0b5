package results

import (
	"math"
	"testing"

	"github.com/agentv/action/suite"
)

// TestAggregatePassAll checks AgentV 5.x's pass_all: the weakest trial's score, passing only
// when every trial reached the threshold, whether or not the file sets one.
func TestAggregatePassAll(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trials  []Trial
		at      float64
		anyPass bool
		score   float64
		verdict Verdict
	}{
		{"all pass", trials(1, 0.9, 0.8), 0.8, true, 0.8, VerdictPass},
		{"one fails though others pass", trials(1, 1, 0), 0.8, true, 0, VerdictFail},
		{"one fails, file threshold", trials(1, 1, 0), 0.8, false, 0, VerdictFail},
		{"fractional weakest below", trials(1, 0.5, 1), 0.8, true, 0.5, VerdictFail},
		{"low threshold", trials(0.6, 0.7), 0.5, true, 0.6, VerdictPass},
		{"an errored trial counts 0", trials(1, -1), 0.8, true, 0, VerdictFail},
		{"all errored", trials(-1, -1), 0.8, true, 0, VerdictError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := AggregateTrials(suite.TrialsPassAll, tt.trials, tt.at, tt.anyPass)
			if math.Abs(got.Score-tt.score) > 1e-9 || got.Verdict != tt.verdict || got.Interval != nil {
				t.Errorf("got score %v verdict %s interval %v, want %v %s", got.Score, got.Verdict, got.Interval, tt.score, tt.verdict)
			}
		})
	}
}
