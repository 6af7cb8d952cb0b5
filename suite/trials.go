package suite

import (
	"fmt"
	"math"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Trial strategies: how the runs of a case that runs several times make its score and verdict.
const (
	// TrialsPassAtK passes when any trial passes; the score is the best trial's. Trials stop
	// at the first one that passes.
	TrialsPassAtK = "pass_at_k"
	// TrialsMean scores the mean of the trials' scores; the verdict is that mean against the
	// case threshold.
	TrialsMean = "mean"
	// TrialsConfidenceInterval scores the lower bound of the 95% confidence interval of the
	// mean (Student's t); the verdict is that bound against the case threshold.
	TrialsConfidenceInterval = "confidence_interval"
	// TrialsPassAll (AgentV 5.x) scores the lowest trial's score and passes when every trial
	// passed.
	TrialsPassAll = "pass_all"
)

// TrialStrategies lists the strategies of 4.x files and --trials-strategy, default first
// (5.x files also have TrialsPassAll).
var TrialStrategies = []string{TrialsPassAtK, TrialsMean, TrialsConfidenceInterval}

// MaxTrials bounds a trial count: each trial is a full run of the case, target and judges.
const MaxTrials = 100

// Trials is how many times each case of a file runs and how the runs combine (4.x `execution.trials`).
type Trials struct {
	Count    int     // runs of each case, 1 to MaxTrials
	Strategy string  // one of TrialStrategies; "" means TrialsPassAtK
	CostUSD  float64 // cost_limit_usd: no further trial starts once the case's trials cost this much; 0: no limit
	// EarlyExit: with true, pass_at_k stops at the first passing trial and pass_all at the
	// first failing one; with false every trial runs. nil is the strategy's own way: pass_at_k
	// stops at the first pass (4.x), the others run every trial.
	EarlyExit *bool `json:",omitempty"`
}

var trialKeys = []string{"count", "strategy", "cost_limit_usd", "costLimitUsd"}

// v4Trials reads a suite's `execution.trials`: {count, strategy, cost_limit_usd}.
func (l *Reader) v4Trials(e *Entry) {
	es, ok := l.MappingEntries(e, "execution %q must be a mapping with count, strategy and cost_limit_usd", "trials")
	if !ok {
		return
	}
	t := &Trials{Strategy: TrialsPassAtK}
	bad := func(x *Entry, want string) {
		l.Errorf(x.Value, KindStructure, "", "trials %q must be %s, got %s", x.Key, want, Describe(x.Value))
		ok = false
	}
	var costAt *Entry
	for i := range es {
		x := &es[i]
		switch x.Key {
		case "count":
			if n, isNum := Number(x.Value); isNum && n == math.Trunc(n) && n >= 1 && n <= MaxTrials {
				t.Count = int(n)
			} else {
				bad(x, fmt.Sprintf("a whole number from 1 to %d", MaxTrials))
			}
		case "strategy":
			if s := Deref(x.Value); s != nil && s.Kind == yaml.ScalarNode && slices.Contains(TrialStrategies, s.Value) {
				t.Strategy = s.Value
			} else {
				bad(x, "one of "+strings.Join(TrialStrategies, ", "))
			}
		case "cost_limit_usd", "costLimitUsd":
			if costAt != nil {
				l.Warnf(x.KeyNode, KindIgnored, "", "trials %q ignored: %q is also set", x.Key, costAt.Key)
				continue
			}
			costAt = x
			if v, isNum := Number(x.Value); isNum && v > 0 && !math.IsInf(v, 0) {
				t.CostUSD = v
			} else if !IsNull(x.Value) {
				bad(x, "a number of US dollars above 0")
			}
		default:
			l.UnknownKey(*x, "in trials", "", trialKeys)
		}
	}
	switch {
	case ok && t.Count == 0:
		l.Errorf(e.KeyNode, KindStructure, "", "execution %q needs %q: how many times each test runs (1 to %d)", "trials", "count", MaxTrials)
	case ok:
		l.Suite.Trials = t
	}
}
