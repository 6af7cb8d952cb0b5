package runner

import (
	"testing"

	"github.com/agentv/action/results"
)

func TestSettle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		score        float64
		own, errored bool
		want         results.Verdict
	}{
		{"at the threshold passes", 0.8, false, false, results.VerdictPass},
		{"below fails", 0.79, true, false, results.VerdictFail},
		{"errored wins over a passing score", 1, true, true, results.VerdictError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &results.Record{Score: tt.score}
			settle(rec, 0.8, tt.own, tt.errored)
			if rec.Verdict != tt.want {
				t.Errorf("verdict %q, want %q", rec.Verdict, tt.want)
			}
			if got := rec.CaseThreshold != nil && *rec.CaseThreshold == 0.8; got != tt.own || (!tt.own && rec.CaseThreshold != nil) {
				t.Errorf("case threshold %v, want recorded: %v", rec.CaseThreshold, tt.own)
			}
		})
	}
}
