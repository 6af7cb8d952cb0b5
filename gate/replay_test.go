package gate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

func TestReplay(t *testing.T) {
	t.Parallel()
	start := func(planned *int) *results.RunRecord {
		return &results.RunRecord{Kind: results.KindRunStart, Format: results.RunFormat, Planned: planned,
			Gate: &results.RunGate{CaseThreshold: 0.7, MaxFailures: 1}}
	}
	end := func(cases, planned int, complete bool, problems ...string) *results.RunRecord {
		return &results.RunRecord{Kind: results.KindRunEnd, Format: results.RunFormat, Cases: new(cases),
			Planned: new(planned), PlannedComplete: &complete, Cancelled: cases < planned || !complete, Problems: problems}
	}
	c := func(id string) *results.Record { return &results.Record{EvalID: id, File: "s.yaml", Dataset: "s"} }
	type line struct {
		c *results.Record
		r *results.RunRecord
	}
	tests := []struct {
		name         string
		lines        []line
		wantProblems []string // substrings, in order; none: no problem
		wantNote     string
		wantOf       string // Counts.OfPlanned
	}{
		{name: "complete run", lines: []line{{r: start(nil)}, {c: c("a")}, {c: c("b")}, {r: end(2, 2, true)}}},
		{name: "the run's own problems", lines: []line{{r: start(nil)}, {c: c("a")}, {r: end(1, 1, true, "s.yaml:4: duplicate case id")}},
			wantProblems: []string{"s.yaml:4: duplicate case id"}},
		{name: "cancelled", lines: []line{{r: start(nil)}, {c: c("a")}, {r: end(1, 40, false, "run cancelled: 1 of at least 40 cases finished")}},
			wantProblems: []string{"run cancelled"}, wantOf: "1 of at least 40"},
		{name: "killed, planned unknown", lines: []line{{r: start(nil)}, {c: c("a")}, {c: c("b")}},
			wantProblems: []string{"line 1: the run that started here did not finish (no run end record: killed, or still running); 2 cases recorded, how many were planned is unknown"},
			wantOf:       "2 of an unknown number of"},
		{name: "killed, planned known", lines: []line{{r: start(new(200))}, {c: c("a")}},
			wantProblems: []string{"1 of 200 cases recorded"}, wantOf: "1 of 200"},
		{name: "cut between start and end", lines: []line{{r: start(nil)}, {c: c("a")}, {r: end(3, 3, true)}},
			wantProblems: []string{"line 3: the run recorded 3 case records but the file holds 1"}, wantOf: "1 of 3"},
		{name: "end without start", lines: []line{{c: c("a")}, {r: end(1, 1, true)}},
			wantProblems: []string{"line 2: run end record without a start record"}},
		{name: "two runs merged", lines: []line{{r: start(nil)}, {c: c("a")}, {r: end(1, 1, true)}, {r: start(nil)}, {c: c("b")}, {r: end(1, 1, true)}}},
		{name: "a merged run killed", lines: []line{{r: start(nil)}, {c: c("a")}, {r: start(nil)}, {c: c("b")}, {r: end(1, 1, true)}},
			wantProblems: []string{"line 1: the run that started here did not finish"}, wantOf: "2 of an unknown number of"},
		{name: "duplicate records", lines: []line{{r: start(nil)}, {c: c("a")}, {c: c("a")}, {c: &results.Record{EvalID: "a", File: "t.yaml"}},
			{c: &results.Record{EvalID: "a", File: "s.yaml", Dataset: "s", Target: "other"}}, {r: end(4, 4, true)}},
			wantProblems: []string{`1 duplicate case record: line 3 repeats "a" of line 2`}},
		{name: "records without an id", lines: []line{{c: c("a")}, {c: c("")}, {c: c("  ")}},
			wantProblems: []string{"2 case records without an eval_id (lines 2, 3)"}, wantNote: "no run records"},
		{name: "old format", lines: []line{{c: c("a")}, {c: c("b")}}, wantNote: "no run records (written by AgentV 2.5 or an older agentv)"},
		{name: "4.x index.jsonl", lines: []line{{c: &results.Record{EvalID: "a", FromV4Index: true}}, {c: &results.Record{EvalID: "b", FromV4Index: true}}},
			wantNote: "this is an AgentV 4.x index.jsonl (a 4.x run directory's), which has no run records: the outcome comes from its rows alone"},
		{name: "4.x rows and old records", lines: []line{{c: &results.Record{EvalID: "a", FromV4Index: true}}, {c: c("b")}},
			wantNote: "no run records (1 of its 2 lines are AgentV 4.x index.jsonl rows, the others written by AgentV 2.5 or an older agentv)"},
		{name: "unknown run record kind", lines: []line{{r: start(nil)}, {r: &results.RunRecord{Kind: "shard_merge"}}, {c: c("a")}, {r: end(1, 1, true)}},
			wantNote: `line 2: run record of unknown kind "shard_merge" skipped`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r Replay
			for i, l := range tt.lines {
				if l.c != nil {
					r.Case(l.c, i+1)
				} else {
					r.Run(l.r, i+1)
				}
			}
			res := r.Result()
			problems := append(append([]string(nil), res.RunProblems...), res.Problems...)
			if len(problems) != len(tt.wantProblems) {
				t.Fatalf("problems = %q, want %d like %q", problems, len(tt.wantProblems), tt.wantProblems)
			}
			for i, w := range tt.wantProblems {
				if !strings.Contains(problems[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, problems[i], w)
				}
			}
			if notes := strings.Join(res.Notes, "\n"); tt.wantNote == "" && notes != "" || !strings.Contains(notes, tt.wantNote) {
				t.Errorf("notes = %q, want %q", notes, tt.wantNote)
			}
			cases := 0
			for _, l := range tt.lines {
				if l.c != nil {
					cases++
				}
			}
			counts := Counts{Total: cases, Planned: res.Planned, PlannedAtLeast: res.PlannedAtLeast, Stopped: res.Stopped}
			if got := counts.OfPlanned(strconv.Itoa); got != tt.wantOf {
				t.Errorf("OfPlanned = %q, want %q (result %+v)", got, tt.wantOf, res)
			}
			if len(tt.lines) > 0 && tt.lines[0].r != nil {
				if o := OptionsOf(res.Gate); o == nil || o.CaseThreshold != 0.7 || o.MaxFailures != 1 {
					t.Errorf("gate = %+v, want the run's", o)
				}
			}
		})
	}
}
