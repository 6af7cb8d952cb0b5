package gate

import (
	"fmt"
	"strings"

	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Replay reads a results file back for the gate, so a report reaches the outcome its run
// reached: the run's own problems keep it invalid, and so does a run without an end record
// (killed), cases that do not add up to what its run recorded, a repeated case record or one
// without an id. Feed it every line in file order (Case and Run), then call Result.
type Replay struct {
	cases    int // case records
	v4rows   int // of which rows of an AgentV 4.x index.jsonl
	index    caseIndex
	noID     []int  // lines of case records without an id
	dups     Listed // repeated records
	cut      Listed // case records whose trials were cut to a run's maximum
	outside  int    // case records outside any run (before a start, after an end)
	runs     int    // start records
	ends     int    // end records
	open     *results.RunRecord
	openLine int
	inRun    int      // case records since the open run's start record
	problems []string // found in the file
	recorded []string // the runs' own problems, from their end records
	notes    []string
	gate     *results.RunGate
	planned  int
	atLeast  bool
	unknown  bool // a run's planned count is unknown (killed while its suite streamed)
	stopped  bool // a run stopped before every planned case finished (cancelled or killed)
	cancel   bool // a run's end record says it was cancelled
	shard    *results.RunShard
}

// maxListed bounds how many record positions one problem lists.
const maxListed = 5

// Case takes a case record and its line number.
func (r *Replay) Case(rec *results.Record, line int) {
	r.cases++
	if rec.FromV4Index {
		r.v4rows++
	}
	if r.open != nil {
		r.inRun++
	} else if r.runs > 0 {
		r.outside++
	}
	id := strings.TrimSpace(rec.EvalID)
	if rec.TrialsInFile > 0 {
		r.cut.Add("line %d: %q holds %d", line, id, rec.TrialsInFile)
	}
	if id == "" {
		r.noID = append(r.noID, line)
		return
	}
	if first, ok := r.index.add(rec, id, 0, line); !ok {
		r.dups.Add("line %d repeats %q of line %d", line, id, first.line)
	}
}

// Run takes a run record and its line number.
func (r *Replay) Run(rec *results.RunRecord, line int) {
	switch rec.Kind {
	case results.KindRunStart:
		r.closeOpen()
		r.runs++
		r.open, r.openLine, r.inRun = rec, line, 0
		if r.gate == nil {
			r.gate = rec.Gate
		}
		if r.shard == nil && rec.Shard != nil {
			sh := *rec.Shard
			r.shard = &sh
		}
	case results.KindRunEnd:
		r.end(rec, line)
	default:
		r.notes = append(r.notes, fmt.Sprintf("line %d: run record of unknown kind %q skipped (written by a later agentv?)", line, rec.Kind))
	}
}

func (r *Replay) end(rec *results.RunRecord, line int) {
	inRun, started := r.inRun, r.open != nil
	if !started {
		r.problems = append(r.problems, fmt.Sprintf("line %d: run end record without a start record: the file was cut or its runs merged out of order", line))
		inRun = 0
	}
	r.open = nil
	r.ends++
	if r.gate == nil {
		r.gate = rec.Gate
	}
	r.recorded = append(r.recorded, rec.Problems...)
	if rec.Shard != nil {
		sh := *rec.Shard // the end record also names the plan
		r.shard = &sh
	}
	if rec.Cases != nil && *rec.Cases != inRun && started {
		r.problems = append(r.problems, fmt.Sprintf("line %d: the run recorded %d case %s but the file holds %d between its start and end records (cut or edited?)",
			line, *rec.Cases, textfmt.Plural(*rec.Cases, "record", "records"), inRun))
	}
	switch {
	case rec.Planned != nil:
		r.planned += *rec.Planned
		if rec.PlannedComplete != nil && !*rec.PlannedComplete {
			r.atLeast = true
		}
		if *rec.Planned > inRun && started {
			r.stopped = true
		}
	case rec.Cases != nil:
		r.planned += *rec.Cases
	default:
		r.planned += inRun
	}
	if rec.Cancelled {
		r.stopped, r.cancel = true, true
	}
}

// closeOpen settles a run whose start record has no end record: it was killed.
func (r *Replay) closeOpen() {
	if r.open == nil {
		return
	}
	st, n := r.open, r.inRun
	r.open = nil
	r.stopped = true
	of := fmt.Sprintf("%d %s recorded, how many were planned is unknown", n, textfmt.Plural(n, "case", "cases"))
	if st.Planned != nil {
		r.planned += *st.Planned
		of = fmt.Sprintf("%d of %d cases recorded", n, *st.Planned)
	} else {
		r.unknown = true
	}
	r.problems = append(r.problems, fmt.Sprintf("line %d: the run that started here did not finish (no run end record: killed, or still running); %s", r.openLine, of))
}

// ReplayResult is what a results file says about the run beyond its case verdicts.
type ReplayResult struct {
	// RunProblems are the problems the runs recorded (redacted by the run), and Problems
	// those found in the file, each naming its line; any makes the report invalid.
	RunProblems []string
	Problems    []string
	Notes       []string         // worth showing, but change nothing
	Gate        *results.RunGate // the thresholds the run gated with, nil when not said
	// Planned, PlannedAtLeast and Stopped fill the Counts fields of the same names.
	Planned        int
	PlannedAtLeast bool
	Stopped        bool
	Cancelled      bool              // a run's end record says it was cancelled
	Shard          *results.RunShard // the part of a split suite the run was, nil for a whole run
}

// Result settles what was read (a run still open at the end of the file was killed).
func (r *Replay) Result() ReplayResult {
	r.closeOpen()
	out := ReplayResult{RunProblems: r.recorded, Problems: r.problems, Notes: r.notes, Gate: r.gate, Stopped: r.stopped, Cancelled: r.cancel, Shard: r.shard}
	if r.runs > 0 || r.ends > 0 {
		out.Planned = r.planned + r.outside
		out.PlannedAtLeast = r.atLeast
		if r.unknown {
			out.Planned, out.PlannedAtLeast = 0, false // a killed run's count is not known
		}
	} else if r.cases > 0 {
		out.Notes = append(out.Notes, r.noRunRecords())
	}
	if n := r.cut.N; n > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d case %s more trials than the %d a run records (%s): only the first %d of each are read",
			n, textfmt.Plural(n, "record holds", "records hold"), suite.MaxTrials, r.cut.String(), suite.MaxTrials))
	}
	if r.outside > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d case %s outside any run's start and end records", r.outside, textfmt.Plural(r.outside, "record", "records")))
	}
	if len(r.noID) > 0 {
		out.Problems = append(out.Problems, fmt.Sprintf("%d case %s without an eval_id (%s)",
			len(r.noID), textfmt.Plural(len(r.noID), "record", "records"), listLines(r.noID)))
	}
	if n := r.dups.N; n > 0 {
		out.Problems = append(out.Problems,
			fmt.Sprintf("%d duplicate case %s: %s", n, textfmt.Plural(n, "record", "records"), r.dups.String()))
	}
	return out
}

func listLines(lines []int) string {
	var s []string
	for _, l := range lines[:min(len(lines), maxListed)] {
		s = append(s, fmt.Sprint(l))
	}
	if len(lines) > maxListed {
		s = append(s, "...")
	}
	return textfmt.Plural(len(lines), "line ", "lines ") + strings.Join(s, ", ")
}

// OptionsOf returns the thresholds a run recorded, nil when g is nil.
func OptionsOf(g *results.RunGate) *Options {
	if g == nil {
		return nil
	}
	return &Options{CaseThreshold: g.CaseThreshold, MinScore: g.MinScore, MaxFailures: g.MaxFailures, MaxErrors: g.MaxErrors}
}

// Record returns the thresholds as a run record holds them.
func (o Options) Record() *results.RunGate {
	return &results.RunGate{CaseThreshold: o.CaseThreshold, MinScore: o.MinScore, MaxFailures: o.MaxFailures, MaxErrors: o.MaxErrors}
}

// BaselineRecord returns the regression thresholds as a run record holds them, with the
// identity of the baseline they were applied against.
func (o Options) BaselineRecord(source, sha256 string, cases int) *results.RunBaseline {
	return &results.RunBaseline{Source: source, SHA256: sha256, Cases: cases,
		RegressionMargin: o.RegressionMargin, MaxRegressions: o.MaxRegressions, MaxMeanDrop: o.MaxMeanDrop}
}

// noRunRecords is the note on a file without run records, saying what wrote it: an AgentV
// 4.x index.jsonl never has them, a results.jsonl of AgentV 2.5 or an older agentv neither.
func (r *Replay) noRunRecords() string {
	const why = "the outcome comes from its %s alone, so a cancelled or killed run cannot be told from a complete one"
	switch r.v4rows {
	case r.cases:
		return "this is an AgentV 4.x index.jsonl (a 4.x run directory's), which has no run records: " + fmt.Sprintf(why, "rows")
	case 0:
		return "this results file has no run records (written by AgentV 2.5 or an older agentv): " + fmt.Sprintf(why, "case records")
	}
	return fmt.Sprintf("this results file has no run records (%d of its %d lines are AgentV 4.x index.jsonl rows, the others written by AgentV 2.5 or an older agentv): ",
		r.v4rows, r.cases) + fmt.Sprintf(why, "case records")
}
