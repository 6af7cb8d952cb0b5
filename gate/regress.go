package gate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentv/action/stats"
)

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
			n, plural(n, "case", "cases"), *o.MaxRegressions, list))
	}
	if d := o.MaxMeanDrop; d != nil && b.Compared > 0 && b.MeanDelta.Estimate < -*d && b.MeanDelta.Below() {
		why = append(why, fmt.Sprintf("mean score fell %.3f against the baseline (95%% interval %+.3f to %+.3f), more than max-mean-drop %s",
			-b.MeanDelta.Estimate, b.MeanDelta.Lo, b.MeanDelta.Hi, strconv.FormatFloat(*d, 'g', -1, 64)))
	}
	return why
}
