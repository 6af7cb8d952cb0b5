// Package textfmt formats words and numbers for messages and files the same way in every package.
package textfmt

import (
	"math"
	"strconv"
	"strings"
)

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// JSNumber formats f as JavaScript's JSON.stringify does: finite numbers as String(number)
// writes them (3000, 0.02, 1e-7, 1e+21), NaN and infinities as null.
func JSNumber(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	return mant + "e" + exp[:1] + strings.TrimLeft(exp[1:], "0")
}
