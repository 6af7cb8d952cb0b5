package textfmt

import (
	"math"
	"testing"
)

func TestJSNumber(t *testing.T) {
	t.Parallel()
	for f, want := range map[float64]string{
		0: "0", 1: "1", -2.5: "-2.5", 1e21: "1e+21", 1e20: "100000000000000000000", 1.5e-7: "1.5e-7",
		1e-7: "1e-7", 0.1: "0.1", math.Inf(1): "null", math.Inf(-1): "null", math.NaN(): "null",
		123e-20: "1.23e-18",
	} {
		if got := JSNumber(f); got != want {
			t.Errorf("JSNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "cases", 1: "case", 2: "cases"} {
		if got := Plural(n, "case", "cases"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
