// Package gate turns case verdicts into the run's outcome and exit code (0 pass, 1 fail,
// 2 invalid, 3 error): a pure function of counts and thresholds.
package gate

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
	"github.com/agentv/action/stats"
)

// Outcome is the result of a whole run.
type Outcome string

// Outcomes, in the order the gate checks them.
const (
	Invalid Outcome = "invalid" // configuration or input problem
	Error   Outcome = "error"   // more errored cases than max-errors
	Fail    Outcome = "fail"    // more failed cases than max-failures, or mean below min-score
	Pass    Outcome = "pass"
	Skipped Outcome = "skipped" // fork PR with withheld secrets: nothing ran
)

// Exit codes of the CLI and the Action.
const (
	ExitPass    = 0
	ExitFail    = 1
	ExitInvalid = 2
	ExitError   = 3
)

// ExitCode maps an outcome to the process exit code. failOnSkip makes skipped exit 1.
func (o Outcome) ExitCode(failOnSkip bool) int {
	switch o {
	case Invalid:
		return ExitInvalid
	case Error:
		return ExitError
	case Fail:
		return ExitFail
	case Skipped:
		if failOnSkip {
			return ExitFail
		}
	}
	return ExitPass
}

// Options are the gate thresholds.
type Options struct {
	CaseThreshold float64  // a case passes at score >= this (default 0.8)
	MinScore      *float64 // minimum mean score over all cases (errored count 0); nil: unset
	MaxFailures   int      // failed cases allowed (default 0)
	MaxErrors     int      // errored cases allowed (default 0)
	// Against a baseline (see Baseline): regressed cases allowed, and the largest fall of
	// the mean score allowed; nil: unset. RegressionMargin is how far a case's score must
	// fall to count.
	MaxRegressions   *int
	MaxMeanDrop      *float64
	RegressionMargin float64
}

// String lists the thresholds: "case threshold 0.8, min-score 0.7, max-failures 0,
// max-errors 0" (min-score only when set).
func (o Options) String() string {
	s := "case threshold " + strconv.FormatFloat(o.CaseThreshold, 'g', -1, 64)
	if o.MinScore != nil {
		s += ", min-score " + strconv.FormatFloat(*o.MinScore, 'g', -1, 64)
	}
	return s + fmt.Sprintf(", max-failures %d, max-errors %d", o.MaxFailures, o.MaxErrors)
}

// Defaults returns the default thresholds: a case passes at 0.8, no failed or errored case
// is allowed, and regressions against a baseline are reported, not gated.
func Defaults() Options {
	return Options{CaseThreshold: 0.8, RegressionMargin: DefaultRegressionMargin}
}

// DefaultRegressionMargin is how far a case's score must fall to count as a regression.
const DefaultRegressionMargin = 0.1

// Counts summarise a run for the gate.
type Counts struct {
	Total, Passed, Failed, Errors, Skipped int
	MeanScore                              float64 // over all cases, errored ones counting 0
	// Problems are configuration or input problems (each one line); any makes the run invalid.
	Problems []string
	// SkipReason is set when the run was skipped (fork PR without secrets).
	SkipReason string
	// Planned is how many cases the run selected (0: not known). Stopped: the run ended before
	// every one finished; PlannedAtLeast: loading was cut short too, so more were selected.
	Planned        int
	PlannedAtLeast bool
	Stopped        bool
	// Baseline is the comparison with a baseline run; nil without one.
	Baseline *Baseline
	// OwnThresholds count the cases graded at a threshold their eval file set (4.x
	// execution.threshold), by threshold, ascending.
	OwnThresholds []OwnThreshold
}

// OwnThreshold counts the cases whose eval file set the score they pass at.
type OwnThreshold struct {
	Threshold float64
	Cases     int
}

// addOwnThreshold counts a case graded at threshold, which its eval file set.
func (c *Counts) addOwnThreshold(threshold float64) {
	i, found := slices.BinarySearchFunc(c.OwnThresholds, threshold, func(o OwnThreshold, t float64) int {
		return cmp.Compare(o.Threshold, t)
	})
	if !found {
		c.OwnThresholds = slices.Insert(c.OwnThresholds, i, OwnThreshold{Threshold: threshold})
	}
	c.OwnThresholds[i].Cases++
}

// CaseThresholds says which case thresholds graded the run: "0.8", or "0.8; 3 cases use
// their file's 0.6, 1 case uses its file's 0.9"; format writes a threshold.
func (c Counts) CaseThresholds(run float64, format func(float64) string) string {
	s := format(run)
	var own []string
	for _, o := range c.OwnThresholds {
		if o.Threshold == run {
			continue // the same score as the run's: nothing to tell apart
		}
		if o.Cases == 1 {
			own = append(own, "1 case uses its file's "+format(o.Threshold))
		} else {
			own = append(own, fmt.Sprintf("%d cases use their file's %s", o.Cases, format(o.Threshold)))
		}
	}
	if len(own) > 0 {
		s += "; " + strings.Join(own, ", ")
	}
	return s
}

// OfPlanned says how many of the planned cases finished, "12 of 200", for a run that
// stopped early, else ""; n formats a count.
func (c Counts) OfPlanned(n func(int) string) string {
	if !c.Stopped {
		return ""
	}
	switch {
	case c.Planned <= 0:
		return n(c.Total) + " of an unknown number of"
	case c.PlannedAtLeast:
		return n(c.Total) + " of at least " + n(c.Planned)
	}
	return n(c.Total) + " of " + n(c.Planned)
}

// Decision is the gate's verdict with the reason a person can read.
type Decision struct {
	Outcome Outcome
	Reason  string
}

// Decide applies the gate's rules, first match wins.
func Decide(c Counts, o Options) Decision {
	if c.SkipReason != "" {
		return Decision{Skipped, c.SkipReason}
	}
	if len(c.Problems) > 0 {
		r := c.Problems[0]
		if len(c.Problems) > 1 {
			r = fmt.Sprintf("%d configuration or input problems; first: %s", len(c.Problems), r)
		}
		return Decision{Invalid, r}
	}
	if c.Total == 0 {
		return Decision{Invalid, "no eval case to run"}
	}
	if c.Errors > o.MaxErrors {
		return Decision{Error, fmt.Sprintf("%d errored %s (max-errors %d)", c.Errors, textfmt.Plural(c.Errors, "case", "cases"), o.MaxErrors)}
	}
	var why []string
	if c.Failed > o.MaxFailures {
		if th := c.CaseThresholds(o.CaseThreshold, formatThreshold); th != formatThreshold(o.CaseThreshold) {
			// Some cases passed at a threshold of their own: the run's alone would mislead.
			why = append(why, fmt.Sprintf("%d failed %s below their case threshold (%s; max-failures %d)", c.Failed, textfmt.Plural(c.Failed, "case", "cases"), th, o.MaxFailures))
		} else {
			why = append(why, fmt.Sprintf("%d failed %s below case threshold %.2f (max-failures %d)", c.Failed, textfmt.Plural(c.Failed, "case", "cases"), o.CaseThreshold, o.MaxFailures))
		}
	}
	if o.MinScore != nil && c.MeanScore < *o.MinScore {
		why = append(why, fmt.Sprintf("mean score %.3f below min-score %.3f", c.MeanScore, *o.MinScore))
	}
	why = append(why, regressionReasons(c.Baseline, o)...)
	if len(why) > 0 {
		return Decision{Fail, strings.Join(why, "; ")}
	}
	reason := fmt.Sprintf("%d of %d cases passed", c.Passed, c.Total)
	// A pass with failures or errors says they were allowed, and by what.
	if c.Failed > 0 {
		reason += fmt.Sprintf("; %d %s within max-failures %d", c.Failed, textfmt.Plural(c.Failed, "failure", "failures"), o.MaxFailures)
	}
	if c.Errors > 0 {
		reason += fmt.Sprintf("; %d errored %s within max-errors %d", c.Errors, textfmt.Plural(c.Errors, "case", "cases"), o.MaxErrors)
	}
	return Decision{Pass, reason}
}

func formatThreshold(t float64) string { return fmt.Sprintf("%.2f", t) }

// Regression thresholds (Options): a run compared with a baseline fails when more cases
// regressed than MaxRegressions, or when the mean score fell by more than MaxMeanDrop with
// the whole interval of the fall below zero. Unset (nil), they only report.

// Baseline is what the gate needs of a comparison with a baseline run.
type Baseline struct {
	// Regressions are the labels of the regressed cases, worst first.
	Regressions []string
	// MeanDelta is the change of the mean score over the cases both runs have, with its
	// interval.
	MeanDelta stats.Interval
	Compared  int // cases both runs have
}

// listedMax is how many regressed cases a reason names.
const listedMax = 10

// regressionReasons returns why the comparison with the baseline fails the run, if it does.
func regressionReasons(b *Baseline, o Options) []string {
	if b == nil {
		return nil
	}
	var why []string
	if n := len(b.Regressions); o.MaxRegressions != nil && n > *o.MaxRegressions {
		names := b.Regressions[:min(n, listedMax)]
		list := strings.Join(names, ", ")
		if n > listedMax {
			list += fmt.Sprintf(" and %d more", n-listedMax)
		}
		why = append(why, fmt.Sprintf("%d %s regressed against the baseline (max-regressions %d): %s",
			n, textfmt.Plural(n, "case", "cases"), *o.MaxRegressions, list))
	}
	if d := o.MaxMeanDrop; d != nil && b.Compared > 0 && b.MeanDelta.Estimate < -*d && b.MeanDelta.Below() {
		why = append(why, fmt.Sprintf("mean score fell %.3f against the baseline (95%% interval %+.3f to %+.3f), more than max-mean-drop %s",
			-b.MeanDelta.Estimate, b.MeanDelta.Lo, b.MeanDelta.Hi, strconv.FormatFloat(*d, 'g', -1, 64)))
	}
	return why
}

// TallyOf counts verdicts, the mean score (errored cases count 0) and the thresholds eval files
// set: of gives a case's verdict, score and own threshold.
func TallyOf[T any](cases []T, of func(T) (results.Verdict, float64, *float64)) Counts {
	var c Counts
	var sum stats.Sum // the same mean whatever order the cases finished in
	for _, x := range cases {
		v, score, threshold := of(x)
		c.Total++
		switch v {
		case results.VerdictPass:
			c.Passed++
			sum.Add(score)
		case results.VerdictFail:
			c.Failed++
			sum.Add(score)
		default:
			c.Errors++
		}
		if threshold != nil {
			c.addOwnThreshold(*threshold)
		}
	}
	if c.Total > 0 {
		c.MeanScore = sum.Mean(c.Total)
	}
	return c
}
