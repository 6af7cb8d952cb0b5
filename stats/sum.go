package stats

import (
	"math"
	"math/big"
)

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
