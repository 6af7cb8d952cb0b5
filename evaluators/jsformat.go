package evaluators

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// jsNumber formats f as JavaScript's String(number) does, so messages that quote a setting or
// a measure read as AgentV 4.x writes them (3000, 0.02, 1e-7).
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	return mant + "e" + exp[:1] + strings.TrimLeft(exp[1:], "0")
}

// jsFixed formats f with d decimals as JavaScript's Number#toFixed: like %.*f, except that an
// exact tie rounds away from zero (0.125 → "0.13") where Go rounds it to even. A tie is a float
// whose exact decimal expansion ends in a 5 at decimal d+1: as ...6 it rounds up.
func jsFixed(f float64, d int) string {
	if math.Abs(f) < 1e21 {
		exact := strings.TrimRight(strconv.FormatFloat(f, 'f', 1100, 64), "0")
		if _, frac, _ := strings.Cut(exact, "."); len(frac) == d+1 && frac[d] == '5' {
			x, _, _ := big.ParseFloat(exact[:len(exact)-1]+"6", 10, 256, big.ToNearestEven)
			return x.Text('f', d)
		}
	}
	return strconv.FormatFloat(f, 'f', d, 64)
}
