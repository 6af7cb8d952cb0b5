package compare

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"math"

	"slices"
	"sync"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
	"github.com/agentv/action/stats"
)

// Defaults of the comparison.
const (
	// DefaultMargin is how far a case's score must move to count as a change: judges
	// rarely give the same answer the same score to the hundredth.
	DefaultMargin = gate.DefaultRegressionMargin
	// Alpha bounds the chance that a run with no real change reports any regression at all
	// (and likewise any improvement), whatever the number of cases.
	Alpha = 0.05
	Level = 0.95       // the confidence of the mean's interval
	Seed  = 20_240_601 // seeds every random draw, so a report is the same each time
)

// Class is what became of a case since the baseline.
type Class string

// Classes of a case.
const (
	Regressed Class = "regressed" // fell by more than the margin, beyond its trials' noise
	Improved  Class = "improved"  // rose by more than the margin, beyond its trials' noise
	Noisy     Class = "noisy"     // moved by more than the margin, but within its trials' noise
	Unchanged Class = "unchanged" // moved by no more than the margin
	New       Class = "new"       // not in the baseline
	Removed   Class = "removed"   // in the baseline, not in this run
)

// Case is one case's change.
type Case struct {
	Dataset, ID, Target string
	Before, After       *Side   // nil for a new or removed case
	Delta               float64 // After.Score - Before.Score (0 for new and removed cases)
	// Test is the permutation test in the direction of the move, made when the score moved
	// by more than the margin and either run has trials.
	Test  *stats.Test
	Level float64 // the p-value Test had to reach
	Class Class
	Label string // the id, with the dataset when another dataset has the same id
}

// Flaky reports whether the case's trials disagreed in either run.
func (c *Case) Flaky() bool {
	return (c.Before != nil && c.Before.Flaky) || (c.After != nil && c.After.Flaky)
}

// Trials reports whether either run ran the case more than once.
func (c *Case) Trials() bool {
	return (c.Before != nil && len(c.Before.Trials) > 0) || (c.After != nil && len(c.After.Trials) > 0)
}

// Dataset is one dataset's change over the cases both runs have.
type Dataset struct {
	Name                          string
	Compared, Regressed, Improved int
	Before, After                 float64 // mean scores
}

// Delta is the change of the dataset's mean.
func (d Dataset) Delta() float64 { return d.After - d.Before }

// Result is a run compared with its baseline.
type Result struct {
	Source string  // the baseline, for people
	Margin float64 // the margin used
	// Cases are every case of either run: regressions first (largest fall first), then
	// improvements (largest rise first), noisy, unchanged, new and removed cases.
	Cases []*Case
	// Mean is the change of the mean score over the cases both runs have, with its paired
	// bootstrap interval at Level. Before and After are the two means.
	Mean          stats.Interval
	Before, After float64
	Datasets      []Dataset // by name; empty when every case is in one dataset
	// Level and RiseLevel are the p-values a fall's and a rise's test had to reach after the
	// correction for testing many cases; Tested is how many cases either run has trials of.
	Level, RiseLevel float64
	Tested           int
	// PassAtK counts the cases both runs have whose trials ran under pass_at_k in either run:
	// their trials stop at the first pass, so their tests have few scores to go on.
	PassAtK int
}

// Count returns how many cases are of class c.
func (r *Result) Count(c Class) int { return len(r.Of(c)) }

// Of returns the cases of class c, in Cases order.
func (r *Result) Of(c Class) []*Case {
	var out []*Case
	for _, x := range r.Cases {
		if x.Class == c {
			out = append(out, x)
		}
	}
	return out
}

// Compared is how many cases both runs have.
func (r *Result) Compared() int {
	return len(r.Cases) - r.Count(New) - r.Count(Removed)
}

// Comparer compares the records of a run, as they finish, with a baseline; safe for
// concurrent use.
type Comparer struct {
	base   *Baseline
	margin float64

	mu    sync.Mutex
	cases []*Case
}

// NewComparer returns a comparer against base with the given margin (DefaultMargin when negative).
func NewComparer(base *Baseline, margin float64) *Comparer {
	if margin < 0 {
		margin = DefaultMargin
	}
	return &Comparer{base: base, margin: margin}
}

// Baseline is the baseline the comparer compares with.
func (c *Comparer) Baseline() *Baseline { return c.base }

// Add takes a finished record of the run and sets its BaselineScore when the baseline has
// the case; call it before the record is written.
func (c *Comparer) Add(r *results.Record) {
	after := sideOf(r)
	x := &Case{Dataset: r.Dataset, ID: r.EvalID, Target: r.Target, After: &after}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.match(Key{r.Dataset, r.EvalID}, r.Target); b != nil {
		before := b.side
		x.Before = &before
		score := before.Score
		r.BaselineScore = &score
	}
	c.cases = append(c.cases, x)
}

// match returns the unmatched baseline case of key with the same target, else the only
// baseline case of key when it is unmatched (the target changed: a new model is compared
// with the old one), else nil.
func (c *Comparer) match(k Key, target string) *baseCase {
	cands := c.base.cases[k]
	for _, b := range cands {
		if !b.matched && b.target == target {
			b.matched = true
			return b
		}
	}
	if len(cands) == 1 && !cands[0].matched {
		cands[0].matched = true
		return cands[0]
	}
	return nil
}

// Result classifies every case and computes the means. Call it once every record was added.
func (c *Comparer) Result() *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := &Result{Source: c.base.Source, Margin: c.margin}
	cases := slices.Clone(c.cases)
	for _, k := range c.base.order {
		for _, b := range c.base.cases[k] {
			if !b.matched {
				before := b.side
				cases = append(cases, &Case{Dataset: k.Dataset, ID: k.ID, Target: b.target, Before: &before, Class: Removed})
			}
		}
	}
	slices.SortStableFunc(cases, func(a, b *Case) int {
		return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Target, b.Target))
	})
	classify(cases, c.margin, res)
	var before, after []float64
	for _, x := range cases {
		if x.Before != nil && x.After != nil {
			before, after = append(before, x.Before.Score), append(after, x.After.Score)
		}
	}
	res.Mean = stats.PairedBootstrap(before, after, Level, stats.DefaultResamples, Seed)
	res.Before, res.After = stats.Mean(before), stats.Mean(after)
	res.Datasets = datasets(cases)
	labels(cases)
	slices.SortStableFunc(cases, func(a, b *Case) int {
		if o := cmp.Compare(classRank[a.Class], classRank[b.Class]); o != 0 {
			return o
		}
		switch a.Class {
		case Regressed:
			return cmp.Compare(a.Delta, b.Delta)
		case Improved, Noisy:
			return cmp.Compare(math.Abs(b.Delta), math.Abs(a.Delta))
		}
		return 0
	})
	res.Cases = cases
	return res
}

var classRank = map[Class]int{Regressed: 0, Improved: 1, Noisy: 2, Unchanged: 3, New: 4, Removed: 5}

// moveEps keeps a move of exactly the margin (0.9 → 0.8 is 0.09999… or 0.10000…1 in
// floating point) from counting as more than the margin.
const moveEps = 1e-9

// classify sets each case's change and class. A case moved when its score changed by more
// than the margin; when either run has trials the move must also be significant: a
// one-sided permutation test at the level Tarone's correction sets for all the tested cases,
// so noise alone makes a run report any regression in under Alpha of runs. Falls and rises
// are two families, each corrected on its own.
func classify(cases []*Case, margin float64, res *Result) {
	// The most extreme split depends only on the pooled scores, so the correction is set
	// before any test, and only the cases that moved by more than the margin are tested.
	var fallMin, riseMin []float64
	for _, x := range cases {
		switch {
		case x.Before == nil:
			x.Class = New
			continue
		case x.After == nil:
			x.Class = Removed
			continue
		}
		x.Class = Unchanged
		x.Delta = x.After.Score - x.Before.Score
		if x.Before.PassAtK || x.After.PassAtK {
			res.PassAtK++
		}
		if x.Trials() {
			fallMin = append(fallMin, stats.FallMinP(x.Before.samples(), x.After.samples()))
			riseMin = append(riseMin, stats.FallMinP(x.After.samples(), x.Before.samples()))
		}
	}
	fallLevel, riseLevel := stats.Tarone(fallMin, Alpha), stats.Tarone(riseMin, Alpha)
	res.Level, res.RiseLevel, res.Tested = fallLevel, riseLevel, len(fallMin)
	for _, x := range cases {
		if x.Class != Unchanged {
			continue
		}
		high, low, level := x.Before, x.After, fallLevel // a rise is the fall from After to Before
		switch {
		case x.Delta < -margin-moveEps:
			x.Class = Regressed
		case x.Delta > margin+moveEps:
			x.Class, high, low, level = Improved, x.After, x.Before, riseLevel
		default:
			continue
		}
		if x.Trials() {
			t := stats.FallTest(high.samples(), low.samples(), caseSeed(x))
			if x.Test, x.Level = &t, level; t.P > level {
				x.Class = Noisy
			}
		}
	}
}

// caseSeed derives a sampled test's seed from the case, so a case's result does not depend
// on which other cases ran.
func caseSeed(x *Case) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", x.Dataset, x.ID, x.Target)
	return h.Sum64() ^ Seed
}

// datasets returns each dataset's change over the cases both runs have, when there is more
// than one dataset.
func datasets(cases []*Case) []Dataset {
	at := map[string]*Dataset{}
	for _, x := range cases {
		d := at[x.Dataset]
		if d == nil {
			d = &Dataset{Name: x.Dataset}
			at[x.Dataset] = d
		}
		if x.Before == nil || x.After == nil {
			continue
		}
		d.Compared++
		d.Before += x.Before.Score
		d.After += x.After.Score
		switch x.Class {
		case Regressed:
			d.Regressed++
		case Improved:
			d.Improved++
		}
	}
	if len(at) < 2 {
		return nil
	}
	out := make([]Dataset, 0, len(at))
	for _, n := range slices.Sorted(maps.Keys(at)) {
		d := *at[n]
		if d.Compared > 0 {
			d.Before /= float64(d.Compared)
			d.After /= float64(d.Compared)
		}
		out = append(out, d)
	}
	return out
}

// labels names each case by its id, adding the dataset (and the target) where the id alone
// is ambiguous.
func labels(cases []*Case) {
	byID := map[string]int{}
	byDS := map[[2]string]int{}
	for _, x := range cases {
		byID[x.ID]++
		byDS[[2]string{x.Dataset, x.ID}]++
	}
	for _, x := range cases {
		x.Label = x.ID
		if byID[x.ID] > 1 && x.Dataset != "" {
			x.Label = x.Dataset + "/" + x.ID
		}
		if byDS[[2]string{x.Dataset, x.ID}] > 1 && x.Target != "" {
			x.Label += " @" + x.Target
		}
	}
}

// Gate returns what the gate needs of the comparison; nil for a nil result.
func (r *Result) Gate() *gate.Baseline {
	if r == nil {
		return nil
	}
	g := &gate.Baseline{MeanDelta: r.Mean, Compared: r.Compared()}
	for _, x := range r.Of(Regressed) {
		g.Regressions = append(g.Regressions, x.Label)
	}
	return g
}
