package results

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/suite"
)

// hostileTrials is a case record line holding n trials, some with text that nests and quotes.
func hostileTrials(n int) string {
	var b strings.Builder
	b.WriteString(`{"eval_id":"big","score":0.5,"verdict":"fail","trial_strategy":"mean","trials":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%3 == 0 {
			fmt.Fprintf(&b, `{"trial":%d,"score":1,"verdict":"pass","candidate_answer":"a \"],[{\" b\\"}`, i+1)
		} else {
			fmt.Fprintf(&b, `{"trial":%d,"score":0,"verdict":"fail"}`, i+1)
		}
	}
	b.WriteString("]}\n")
	return b.String()
}

func TestTrialList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in          string
		kept, total int
		wantErr     bool
	}{
		{`null`, 0, 0, false},
		{`[]`, 0, 0, false},
		{` [ ] `, 0, 0, false},
		{`[{"score":1}]`, 1, 1, false},
		{`[{"score":1,"turns":[{"a":[1,2]}]}, {"score":0,"candidate_answer":"x]}\\\"["}]`, 2, 2, false},
		{`[{"score":"high"}]`, 0, 1, true},
	}
	for _, tt := range tests {
		var l TrialList[Trial]
		err := json.Unmarshal([]byte(tt.in), &l)
		if (err != nil) != tt.wantErr || len(l.Items) != tt.kept || l.Total != tt.total {
			t.Errorf("%s: kept %d of %d, err %v; want %d of %d, error %v", tt.in, len(l.Items), l.Total, err, tt.kept, tt.total, tt.wantErr)
		}
	}
}

// A record holding more trials than a run records keeps the first suite.MaxTrials, in order,
// and says how many the line held.
func TestScanCapsTrials(t *testing.T) {
	t.Parallel()
	const n = 100_000
	var got *Record
	err := Scan(strings.NewReader(hostileTrials(n)), func(r *Record) error { got = r; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Trials) != suite.MaxTrials || got.TrialsInFile != n {
		t.Fatalf("kept %d trials, TrialsInFile %d; want %d and %d", len(got.Trials), got.TrialsInFile, suite.MaxTrials, n)
	}
	for i, tr := range got.Trials {
		if tr.Trial != i+1 {
			t.Fatalf("trial %d is trial %d of the file", i+1, tr.Trial)
		}
	}
	if got.Trials[0].CandidateAnswer != `a "],[{" b\` {
		t.Errorf("candidate answer %q", got.Trials[0].CandidateAnswer)
	}
	// A record within the limit is read whole and not marked.
	err = Scan(strings.NewReader(hostileTrials(3)), func(r *Record) error { got = r; return nil })
	if err != nil || len(got.Trials) != 3 || got.TrialsInFile != 0 {
		t.Errorf("3 trials: kept %d, TrialsInFile %d, err %v", len(got.Trials), got.TrialsInFile, err)
	}
}
