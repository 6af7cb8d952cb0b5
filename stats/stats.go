// Package stats holds the statistics that compare two runs of an eval suite: the mean of
// paired score differences with a bootstrap interval, a one-sided permutation test of one
// case's trial scores, and a correction for testing many cases at once. Every random draw
// comes from a seeded generator, so the same inputs give the same report.
package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
)

// Mean returns the arithmetic mean of xs, 0 for none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Interval is an estimate with its confidence interval.
type Interval struct {
	Estimate, Lo, Hi float64
}

// Below reports whether the whole interval is below zero.
func (i Interval) Below() bool { return i.Hi < 0 }

// DefaultResamples is how many bootstrap resamples an interval uses: enough that the ends of
// a 95% interval move by well under a thousandth between seeds for suites of tens of cases.
const DefaultResamples = 10_000

// PairedBootstrap returns the mean of after[i]-before[i] with its percentile bootstrap
// interval at level (0.95 for 95%): cases are resampled keeping each case's two scores
// together, so a case's own difficulty cancels out. With no cases the interval is [0, 0].
func PairedBootstrap(before, after []float64, level float64, resamples int, seed uint64) Interval {
	n := min(len(before), len(after))
	if n == 0 {
		return Interval{}
	}
	d := make([]float64, n)
	for i := range n {
		d[i] = after[i] - before[i]
	}
	est := Mean(d)
	if n == 1 || resamples <= 0 {
		return Interval{est, est, est}
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	for r := range means {
		var s float64
		for range n {
			s += d[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	slices.Sort(means)
	tail := (1 - level) / 2
	return Interval{est, quantile(means, tail), quantile(means, 1-tail)}
}

// quantile returns the q-quantile of sorted xs, interpolating linearly between order
// statistics (the "type 7" rule most statistics software uses by default).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// sumPrec holds any sum of float64 values exactly: their bits span 2^-1074 to 2^1024, plus
// room for carries.
const sumPrec = 2200

// Sum adds float64 values without rounding, so a total, and the mean made from it, is the
// same whatever order the values came in (cases finish in any order when several run at
// once). The zero value is an empty sum. NaN and infinities count as 0.
type Sum struct {
	acc, x big.Float
	n      int
}

// Add adds v.
func (s *Sum) Add(v float64) {
	if s.n == 0 {
		s.acc.SetPrec(sumPrec)
		s.x.SetPrec(sumPrec)
	}
	s.n++
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	s.acc.Add(&s.acc, s.x.SetFloat64(v))
}

// Mean returns the sum divided by n, rounded once to the nearest float64 (0 when n is 0).
func (s *Sum) Mean(n int) float64 {
	if n <= 0 {
		return 0
	}
	var q big.Float
	q.SetPrec(sumPrec).Quo(&s.acc, new(big.Float).SetPrec(sumPrec).SetInt64(int64(n)))
	f, _ := q.Float64()
	return f
}
