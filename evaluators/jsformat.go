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
// exact tie rounds away from zero (0.125 → "0.13") where Go rounds it to even.
func jsFixed(f float64, d int) string {
	s := strconv.FormatFloat(f, 'f', d, 64)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1e21 {
		return s
	}
	// A tie is a float whose exact value times 10^d ends in exactly .5.
	scale := new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil))
	x := new(big.Float).SetPrec(2048).SetFloat64(math.Abs(f))
	x.Mul(x, scale)
	n, _ := x.Int(nil)
	frac := new(big.Float).SetPrec(2048).Sub(x, new(big.Float).SetPrec(2048).SetInt(n))
	if frac.Cmp(big.NewFloat(0.5)) != 0 {
		return s
	}
	n.Add(n, big.NewInt(1))
	digits := n.String()
	if d > 0 {
		if len(digits) <= d {
			digits = strings.Repeat("0", d-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-d] + "." + digits[len(digits)-d:]
	}
	if f < 0 {
		digits = "-" + digits
	}
	return digits
}
