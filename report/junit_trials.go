package report

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// junitTestcase is a testcase with Maven Surefire's flaky elements: a passing flaky case lists
// each trial that did not pass as a flakyFailure or flakyError, as Surefire reports a test that
// passed on a rerun (viewers that know Surefire show it as flaky).
type junitTestcase struct {
	junit.Testcase
	FlakyFailures []junitRerun `xml:"flakyFailure,omitempty"`
	FlakyErrors   []junitRerun `xml:"flakyError,omitempty"`
}

// junitRerun is Surefire's rerunType: a message, a type and the run's output.
type junitRerun struct {
	Message   string        `xml:"message,attr,omitempty"`
	Type      string        `xml:"type,attr"`
	SystemOut *junit.Output `xml:"system-out,omitempty"`
}

// addFlaky lists the trials of a passing flaky case that did not pass (a failed one's
// system-out lists its trials).
func addFlaky(tc *junitTestcase, threshold float64, r *results.Record) {
	if !r.Flaky || verdictOf(r) != results.VerdictPass {
		return
	}
	for _, t := range r.Trials {
		if len(tc.FlakyFailures)+len(tc.FlakyErrors) == suite.MaxTrials {
			return
		}
		switch t.Verdict {
		case results.VerdictPass:
		case results.VerdictFail:
			tc.FlakyFailures = append(tc.FlakyFailures, junitRerun{Type: "below-threshold",
				Message:   logtext.Block(fmt.Sprintf("trial %d: score %.3f below case threshold %.3f", t.Trial, t.Score, threshold)),
				SystemOut: &junit.Output{Data: logtext.Block(trialOut(t))}})
		default:
			msg := cmp.Or(t.Error, "case has verdict "+string(t.Verdict))
			tc.FlakyErrors = append(tc.FlakyErrors, junitRerun{Type: "error",
				Message:   logtext.Block(elide(oneLine(fmt.Sprintf("trial %d: %s", t.Trial, msg)), 500)),
				SystemOut: &junit.Output{Data: logtext.Block(trialOut(t))}})
		}
	}
}

// trialOut is what a flaky element says of its trial: its evaluators.
func trialOut(t results.Trial) string {
	var b strings.Builder
	fmt.Fprintf(&b, "score: %.3f\n", t.Score)
	if len(t.EvaluatorResults) > 0 {
		b.WriteString("evaluators:\n")
		writeEvaluators(&b, t.EvaluatorResults, "  ")
	}
	return b.String()
}

// writeTrials writes a testcase's trials: strategy, passes, flakiness, each verdict and score.
func writeTrials(b *strings.Builder, r *results.Record) {
	if len(r.Trials) == 0 {
		return
	}
	fmt.Fprintf(b, "trials: %d/%d passed (%s)", r.TrialsPassed(), len(r.Trials), r.TrialStrategy)
	if r.Flaky {
		b.WriteString(", flaky")
	}
	b.WriteByte('\n')
	if r.Flaky {
		b.WriteString("flaky: true\n")
	}
	if iv := r.TrialInterval; iv != nil {
		fmt.Fprintf(b, "interval: %.3f-%.3f (95%%, mean %.3f, stddev %.3f)\n", iv.Low, iv.High, iv.Mean, iv.StdDev)
	}
	if r.TrialsCostLimited {
		b.WriteString("trials stopped at the cost limit\n")
	}
	for i, t := range r.Trials {
		if i == suite.MaxTrials { // a results file from elsewhere may hold any number
			fmt.Fprintf(b, "  … and %d more\n", len(r.Trials)-i)
			break
		}
		fmt.Fprintf(b, "  - trial %d: %.3f %s", t.Trial, t.Score, t.Verdict)
		if t.Error != "" {
			fmt.Fprintf(b, ": %s", elide(oneLine(t.Error), 500))
		}
		b.WriteByte('\n')
	}
}
