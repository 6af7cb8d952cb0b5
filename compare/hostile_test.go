package compare

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/stats"
	"github.com/agentv/action/suite"
)

// A baseline from a fork's artifact may hold a million trials of a case. It is read keeping
// a run's maximum of trials (its memory bounded by the line, not by the trials it decodes),
// says so, and the comparison's tests draw a bounded number of scores. Not parallel: it
// measures the bytes it allocates.
//
//nolint:paralleltest // it measures the bytes it allocates (see above).
func TestHostileBaselineTrials(t *testing.T) {
	const n = 1_000_000
	var b strings.Builder
	b.WriteString(`{"eval_id":"big","dataset":"d","score":1,"verdict":"pass","trial_strategy":"mean","trials":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"score":1}`)
	}
	b.WriteString("]}\n")
	line := b.Len()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	base, err := Read(strings.NewReader(b.String()))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// The scanner's buffer grows to the line (doubling: under 2 lines, plus the string's
	// reader); the million trials themselves would need tens of MB more.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(3*line) {
		t.Errorf("reading a %d-byte line allocated %d bytes", line, alloc)
	}
	got := base.cases[Key{"d", "big"}][0].side.Trials
	if len(got) != suite.MaxTrials {
		t.Errorf("kept %d trials, want %d", len(got), suite.MaxTrials)
	}
	base.Source = "base.jsonl"
	if note := base.Note(); !strings.Contains(note, fmt.Sprintf(`line 1: "big" holds %d`, n)) || !strings.Contains(note, "only the first 100") {
		t.Errorf("note %q", note)
	}

	c := NewComparer(base, DefaultMargin)
	r := &results.Record{EvalID: "big", Dataset: "d", Score: 0, Verdict: results.VerdictFail, TrialStrategy: suite.TrialsMean}
	for i := range suite.MaxTrials {
		r.Trials = append(r.Trials, results.Trial{Trial: i + 1, Verdict: results.VerdictFail})
	}
	c.Add(r)
	res := c.Result()
	x := res.Cases[0]
	if x.Test == nil || x.Test.Draws > stats.MaxDraws || x.Class != Regressed {
		t.Errorf("case %+v test %+v: want a regression tested with at most %d draws", x, x.Test, stats.MaxDraws)
	}
}
