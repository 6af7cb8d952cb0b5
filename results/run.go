package results

import (
	"bytes"
	"fmt"
	"math"
)

// RunFormat is the version of the run records this program writes; readers accept any.
const RunFormat = 1

// Run record kinds: the value of a run record's "record" key. Case records have no such key.
const (
	KindRunStart = "run_start" // first line: written before any case runs
	KindRunEnd   = "run_end"   // last line: written once the run's outcome is known
)

// RunRecord is a line of a results file about the run as a whole: a start record before any
// case record, an end record when the run ended, so a file with a start record and no end
// record was written by a run that was killed (or is still running).
type RunRecord struct {
	Kind      string `json:"record"`
	Format    int    `json:"format"`
	Version   string `json:"agentv_version,omitempty"`
	Timestamp string `json:"timestamp"` // RFC 3339, UTC: start or end time

	// Planned is the number of cases the run selected: in the start record only when every
	// case was loaded before the first ran, always in the end record. PlannedComplete is
	// false when loading was cut short, so the run planned at least Planned cases.
	Planned         *int         `json:"planned,omitempty"`
	PlannedComplete *bool        `json:"planned_complete,omitempty"`
	Gate            *RunGate     `json:"gate,omitempty"`
	Shard           *RunShard    `json:"shard,omitempty"`    // one shard of a split suite
	Baseline        *RunBaseline `json:"baseline,omitempty"` // start record: so a report gates as the run did

	// End record only.
	Outcome    string     `json:"outcome,omitempty"` // pass | fail | error | invalid | skipped
	Reason     string     `json:"reason,omitempty"`
	Cases      *int       `json:"cases,omitempty"` // case records written between start and end
	Passed     int        `json:"passed,omitempty"`
	Failed     int        `json:"failed,omitempty"`
	Errors     int        `json:"errors,omitempty"`
	MeanScore  *float64   `json:"mean_score,omitempty"`
	Cancelled  bool       `json:"cancelled,omitempty"` // interrupted (SIGINT, SIGTERM) before every case ran
	Problems   []string   `json:"problems,omitempty"`  // run-level problems (redacted); any makes the run invalid
	DurationMS int64      `json:"duration_ms,omitempty"`
	Budget     *RunBudget `json:"budget,omitempty"` // --budget-usd
}

// RunBudget is a run's cost budget and what became of it.
type RunBudget struct {
	LimitUSD float64 `json:"limit_usd"`
	SpentUSD float64 `json:"spent_usd"` // what the finished cases' targets reported they cost
	Exceeded bool    `json:"exceeded"`  // the spent cost reached the limit
	NotRun   int     `json:"not_run"`   // cases that did not start because of it (error records)
	// Files is true when the limit is the sum of the eval files' own budgets (AgentV 5.x
	// evaluate_options.budget_usd), each file spending its own; false: the run's --budget-usd.
	Files bool `json:"files,omitempty"`
}

// String says what became of the budget, for reports.
func (b *RunBudget) String() string {
	from := "--budget-usd"
	if b.Files {
		from = "the eval files' evaluate_options.budget_usd"
	}
	s := fmt.Sprintf("budget $%.2f (%s): $%.4f spent", b.LimitUSD, from, b.SpentUSD)
	if b.Exceeded {
		s += fmt.Sprintf(", exceeded: %d %s not run", b.NotRun, map[bool]string{true: "case", false: "cases"}[b.NotRun == 1])
	}
	return s
}

// RunGate is the gate thresholds of a run.
type RunGate struct {
	CaseThreshold float64  `json:"case_threshold"`
	MinScore      *float64 `json:"min_score,omitempty"`
	MaxFailures   int      `json:"max_failures"`
	MaxErrors     int      `json:"max_errors"`
}

// RunBaseline is the baseline a run was compared with and the regression thresholds it
// gated with (MaxRegressions and MaxMeanDrop nil: reported, not gated).
type RunBaseline struct {
	Source           string   `json:"source"`            // as reports name it: the file, or the workflow run it came from
	SHA256           string   `json:"sha256"`            // of the baseline file, hex
	Cases            int      `json:"cases"`             // case records the baseline holds
	RegressionMargin float64  `json:"regression_margin"` // how far a case's score had to fall to count
	MaxRegressions   *int     `json:"max_regressions,omitempty"`
	MaxMeanDrop      *float64 `json:"max_mean_drop,omitempty"`
}

// RunShard says which part of a split suite a run was: shard Index (1-based) of Count.
type RunShard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Plan identifies the split (the cases of all shards, and Count), PlanCases counts those
	// cases; the end record has them.
	Plan      string `json:"plan,omitempty"`
	PlanCases *int   `json:"plan_cases,omitempty"`
}

// AppendRun appends r as one line of JSON (no newline), without HTML escaping.
func AppendRun(b []byte, r *RunRecord) []byte {
	if m := r.MeanScore; m != nil && (math.IsNaN(*m) || math.IsInf(*m, 0)) {
		c := *r // JSON has no NaN: an unknowable mean is left out
		c.MeanScore = nil
		r = &c
	}
	var buf bytes.Buffer
	_ = newEncoder(&buf).Encode(r) // a RunRecord always encodes: no maps, funcs or non-finite floats
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}
