// Package history follows a suite across runs: the results files of earlier runs (the base
// branch's, oldest first) and the current run, as per-dataset pass rates and mean scores per
// run, and per case its score and status in each run and since which run it has been failing.
//
//	h := history.New()
//	for _, f := range files { _ = h.ReadRun(f.Run, f.Reader, threshold) } // oldest first
//	h.Begin(history.Run{Label: "this run"})
//	h.Add(history.Key{Dataset: "d", ID: "a"}, 0.2, history.Fail)
//	trend, since := h.Trend(), h.FailingSince(history.Key{Dataset: "d", ID: "a"})
//
// Records are matched by dataset, id and target, as compare matches a run to its baseline.
package history

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/agentv/action/results"
)

// MaxRuns bounds a history: the history input's maximum, plus the current run.
const MaxRuns = 31

// Status is a case's outcome in one run; "" means the case was not in that run.
type Status string

// Statuses.
const (
	Missing Status = ""
	Pass    Status = "pass"
	Fail    Status = "fail"
	Error   Status = "error"
)

// Failing reports whether the status is a failure or an error.
func (s Status) Failing() bool { return s == Fail || s == Error }

// StatusOf is a record's status: errored when it has an error or an unknown verdict; a record
// without a verdict (AgentV 2.5) passes at threshold or above.
func StatusOf(verdict, errText string, score, threshold float64) Status {
	switch {
	case errText != "":
		return Error
	case verdict == string(results.VerdictPass):
		return Pass
	case verdict == string(results.VerdictFail):
		return Fail
	case verdict == "" && score >= threshold:
		return Pass
	case verdict == "":
		return Fail
	}
	return Error
}

// Key identifies a case across runs.
type Key struct{ Dataset, ID, Target string }

// Run is one run of the history.
type Run struct {
	Label   string    // short, for a chart's axis: the workflow run's number, or the folder of its file
	URL     string    // its page; "" when unknown (local files)
	Started time.Time // zero when unknown
}

// Point is a case in one run, for the HTML report's per-case chart.
type Point struct {
	Run, URL string
	Score    float64
	Status   string // pass, fail or error
}

// cell is a case in one run, kept small: a 100,000-case suite over 31 runs is 3.1M cells.
type cell struct {
	score  float64
	status uint8 // index in statuses
}

// statuses are the cells' statuses by index; 0 is Missing.
var statuses = []Status{Missing, Pass, Fail, Error}

func (c cell) st() Status { return statuses[c.status] }

// History is a sequence of runs, oldest first, and their cases.
type History struct {
	runs   []Run
	index  map[Key]int // where a case's series is in series (one hash a record)
	series [][]cell    // one cell a run, up to the last run the case was in
	order  []Key       // first appearance of each case, as series
}

// New returns an empty history.
func New() *History { return &History{index: map[Key]int{}} }

// Begin starts the next (newer) run; Add fills it.
func (h *History) Begin(r Run) { h.runs = append(h.runs, r) }

// Add records a case's score and status in the run begun last. A case added twice to a run
// keeps its last record (an AgentV 4.x rerun appends the newer row).
func (h *History) Add(k Key, score float64, st Status) {
	if len(h.runs) == 0 {
		h.Begin(Run{})
	}
	i := len(h.runs) - 1
	at, ok := h.index[k]
	if !ok {
		at = len(h.series)
		h.index[k] = at
		h.order = append(h.order, k)
		h.series = append(h.series, nil)
	}
	s := h.series[at]
	for len(s) <= i {
		s = append(s, cell{})
	}
	if math.IsNaN(score) {
		score = 0
	}
	s[i] = cell{score: min(max(score, 0), 1), status: uint8(max(slices.Index(statuses, st), 0))}
	h.series[at] = s
}

// ReadRun adds run r with the case records of a results file (this program's, AgentV's 2.5
// records, 4.x's index.jsonl rows); a record without a verdict passes at threshold. A line
// that is not a record is an error naming it, and the run is not added; run records are
// skipped.
func (h *History) ReadRun(r Run, rd io.Reader, threshold float64) error {
	type entry struct {
		k     Key
		score float64
		st    Status
	}
	var got []entry
	err := results.EachLine(rd, func(raw []byte, n int) error {
		var l results.CaseLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("line %d: not a results record: %w", n, err)
		}
		id, isCase, err := l.Check(n)
		if !isCase || err != nil {
			return err // nil for a run record
		}
		errText := l.Error
		verdict := l.Verdict
		if verdict == "" && l.ExecutionStatus == "quality_failure" {
			verdict = string(results.VerdictFail)
		}
		score := *l.Score
		st := StatusOf(verdict, errText, score, threshold)
		if st == Error {
			score = 0 // an errored case counts 0, as in the gate and compare
		}
		got = append(got, entry{Key{l.Dataset, id, l.Target}, score, st})
		return nil
	})
	if err != nil {
		return err
	}
	h.Begin(r)
	for _, e := range got {
		h.Add(e.k, e.score, e.st)
	}
	return nil
}

// Runs returns the runs, oldest first.
func (h *History) Runs() []Run { return h.runs }

// Len is the number of runs.
func (h *History) Len() int { return len(h.runs) }

// at returns the case's cell in run i (Missing past its series).
func (h *History) at(k Key, i int) cell {
	if at, ok := h.index[k]; ok && i < len(h.series[at]) {
		return h.series[at][i]
	}
	return cell{}
}

// seriesOf returns the case's cells, nil for a case never seen.
func (h *History) seriesOf(k Key) []cell {
	if at, ok := h.index[k]; ok {
		return h.series[at]
	}
	return nil
}

// Status returns the case's status in run i ("" when it was not in that run).
func (h *History) Status(k Key, i int) Status { return h.at(k, i).st() }

// FailingSince returns the run from which the case has failed (or errored) in every run up
// to the newest: the oldest run of its unbroken failing streak. ok is false when the case
// does not fail in the newest run. A run the case was not in ends the streak.
func (h *History) FailingSince(k Key) (since int, ok bool) {
	last := len(h.runs) - 1
	if last < 0 || !h.at(k, last).st().Failing() {
		return 0, false
	}
	since = last
	for since > 0 && h.at(k, since-1).st().Failing() {
		since--
	}
	return since, true
}

// Series returns the case's points, oldest run first, leaving out the runs it was not in.
func (h *History) Series(k Key) []Point {
	var out []Point
	for i, c := range h.seriesOf(k) {
		if c.st() == Missing {
			continue
		}
		out = append(out, Point{Run: h.runs[i].Label, URL: h.runs[i].URL, Score: c.score, Status: string(c.st())})
	}
	return out
}

// Points returns every case's points (Series), for the HTML report's per-case history.
func (h *History) Points() map[Key][]Point {
	out := make(map[Key][]Point, len(h.order))
	for _, k := range h.order {
		out[k] = h.Series(k)
	}
	return out
}

// DatasetTrend is one dataset's cases, pass rate and mean score in each run, oldest first;
// a run without cases of it has 0 cases and NaN rates.
type DatasetTrend struct {
	Dataset  string
	Cases    []int
	PassRate []float64 // 0–1
	Mean     []float64 // errored cases count 0
}

// Trend returns each dataset's trend, datasets in the order their cases first came.
func (h *History) Trend() []DatasetTrend {
	n := len(h.runs)
	at := map[string]int{}
	var out []DatasetTrend
	sums := [][]float64{}
	passed := [][]int{}
	for n0, k := range h.order {
		i, ok := at[k.Dataset]
		if !ok {
			i = len(out)
			at[k.Dataset] = i
			out = append(out, DatasetTrend{Dataset: k.Dataset, Cases: make([]int, n), PassRate: make([]float64, n), Mean: make([]float64, n)})
			sums, passed = append(sums, make([]float64, n)), append(passed, make([]int, n))
		}
		for r, c := range h.series[n0] {
			if c.st() == Missing {
				continue
			}
			out[i].Cases[r]++
			sums[i][r] += c.score
			if c.st() == Pass {
				passed[i][r]++
			}
		}
	}
	for i := range out {
		for r := range n {
			if c := out[i].Cases[r]; c > 0 {
				out[i].PassRate[r] = float64(passed[i][r]) / float64(c)
				out[i].Mean[r] = sums[i][r] / float64(c)
			} else {
				out[i].PassRate[r], out[i].Mean[r] = math.NaN(), math.NaN()
			}
		}
	}
	return out
}
