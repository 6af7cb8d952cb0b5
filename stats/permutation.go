package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Test is the outcome of a one-sided permutation test.
type Test struct {
	// P is the p-value: how likely a fall at least this large is when the scores of both
	// runs come from one distribution.
	P float64
	// PMin is the smallest p-value any split of these scores could give (1 when every score
	// is the same), so a correction for many tests can leave out those never significant.
	PMin  float64
	Exact bool // every split was counted rather than sampled
	Draws int  // scores the sampled test drew (0 when exact), at most MaxDraws
}

// ExactLimit is the largest number of splits a test counts one by one; past it (more than
// ten trials a side) it samples MonteCarloResamples splits instead.
const ExactLimit = 100_000

// MonteCarloResamples is how many random splits a sampled test draws.
const MonteCarloResamples = 20_000

// MaxDraws bounds a sampled test's work: MonteCarloResamples splits of groups of up to 100
// scores. A larger group gets fewer splits, which leaves P valid but larger.
const MaxDraws = MonteCarloResamples * 100

// eps absorbs rounding when sums of the same scores are added in another order.
const eps = 1e-9

// FallTest tests whether the after scores are lower than the before scores: the one-sided
// two-sample permutation test of the difference in means (Fisher–Pitman). P is the share of
// splits of the pooled scores whose after group sums to no more than the observed one; it
// assumes nothing about the scores' distribution, and on pass/fail scores it is Fisher's
// exact test. Up to ExactLimit splits are all counted; beyond, MonteCarloResamples seeded
// random splits give P = (1 + hits) / (1 + draws), a valid p-value too. With an empty group
// P and PMin are 1.
func FallTest(before, after []float64, seed uint64) Test {
	n1, n2 := len(before), len(after)
	if n1 == 0 || n2 == 0 {
		return Test{P: 1, PMin: 1, Exact: true}
	}
	pooled := make([]float64, 0, n1+n2)
	pooled = append(append(pooled, before...), after...)
	var obs float64
	for _, v := range after {
		obs += v
	}
	pmin := minP(pooled, n2)
	if total := Binomial(n1+n2, n2); total <= ExactLimit {
		hits := countAtMost(pooled, n2, obs+eps)
		return Test{P: min(1, float64(hits)/total), PMin: pmin, Exact: true}
	}
	rng := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	work := slices.Clone(pooled)
	hits := 0
	resamples := min(MonteCarloResamples, MaxDraws/n2)
	for range resamples {
		// A partial Fisher–Yates shuffle draws a random after group into work[:n2].
		var s float64
		for i := range n2 {
			j := i + rng.IntN(len(work)-i)
			work[i], work[j] = work[j], work[i]
			s += work[i]
		}
		if s <= obs+eps {
			hits++
		}
	}
	// A sampled p-value below the exact smallest one would make Tarone's correction wrong:
	// raising it to that keeps it valid.
	floor := 1 / float64(resamples+1)
	p := max(float64(1+hits)/float64(1+resamples), pmin)
	return Test{P: p, PMin: max(pmin, floor), Draws: resamples * n2}
}

// FallMinP is FallTest's PMin without the test; it depends only on the pooled scores.
func FallMinP(before, after []float64) float64 {
	if len(before) == 0 || len(after) == 0 {
		return 1
	}
	pooled := make([]float64, 0, len(before)+len(after))
	return minP(append(append(pooled, before...), after...), len(after))
}

// countAtMost counts the k-element subsets of xs whose sum is at most limit.
func countAtMost(xs []float64, k int, limit float64) int {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	var count int
	var walk func(start, left int, sum float64)
	walk = func(start, left int, sum float64) {
		if left == 0 {
			if sum <= limit {
				count++
			}
			return
		}
		for i := start; i <= len(sorted)-left; i++ {
			// The cheapest completion from i on is sorted[i:i+left]; past the limit, every
			// later start is dearer still.
			low := sum
			for _, v := range sorted[i : i+left] {
				low += v
			}
			if low > limit {
				return
			}
			walk(i+1, left-1, sum+sorted[i])
		}
	}
	walk(0, k, 0)
	return count
}

// minP is the probability of the most extreme split: the after group holding the k lowest
// scores. Only ties at the boundary let more than one split reach it.
func minP(xs []float64, k int) float64 {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	v := sorted[k-1]
	tied, taken := 0, 0
	for i, x := range sorted {
		if math.Abs(x-v) <= eps {
			tied++
			if i < k {
				taken++
			}
		}
	}
	if all := Binomial(len(xs), k); !math.IsInf(all, 0) {
		return Binomial(tied, taken) / all
	}
	// Past float64's range (groups of hundreds of scores) the ratio is taken in logarithms.
	return math.Exp(lchoose(tied, taken) - lchoose(len(xs), k))
}

// lchoose is the natural logarithm of n choose k.
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Binomial returns n choose k as a float64 (exact up to 2^53).
func Binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

// Tarone returns the p-value a test must reach when m tests of discrete data are made at once
// and the chance of any false positive must stay at most alpha (Tarone, "A modified
// Bonferroni method for discrete data", Biometrics 46, 1990): alpha divided by the smallest K
// for which at most K tests could reach alpha/K at all (their PMin), so cases whose trials
// all scored the same cost the others nothing.
func Tarone(pmins []float64, alpha float64) float64 {
	for k := 1; k <= len(pmins); k++ {
		level := alpha / float64(k)
		able := 0
		for _, p := range pmins {
			if p <= level {
				able++
			}
		}
		if able <= k {
			return level
		}
	}
	return alpha
}
