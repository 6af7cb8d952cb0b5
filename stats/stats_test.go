package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Fisher's exact test is the permutation test on pass/fail scores, so its published values
// check FallTest: the lady tasting tea (Fisher 1935) picks the 4 milk-first cups of 8; all
// 4 right has p = 1/70, 3 right p = 17/70.
func TestFallTestFisherExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		before, after []float64
		p, pmin       float64
	}{
		{"all four right", []float64{1, 1, 1, 1}, []float64{0, 0, 0, 0}, 1.0 / 70, 1.0 / 70},
		{"three right", []float64{1, 1, 1, 0}, []float64{1, 0, 0, 0}, 17.0 / 70, 1.0 / 70},
		{"no change", []float64{1, 0, 1, 0}, []float64{1, 0, 1, 0}, 53.0 / 70, 1.0 / 70},
		{"all equal", []float64{1, 1, 1}, []float64{1, 1, 1}, 1, 1},
		{"empty side", nil, []float64{0, 1}, 1, 1},
		// One baseline sample against five trials: at best 1 split in 6.
		{"one sample before", []float64{1}, []float64{0, 0, 0, 0, 0}, 1.0 / 6, 1.0 / 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FallTest(tt.before, tt.after, 1)
			if !near(got.P, tt.p, 1e-12) || !near(got.PMin, tt.pmin, 1e-12) || !got.Exact {
				t.Errorf("FallTest = %+v, want P %.6f PMin %.6f exact", got, tt.p, tt.pmin)
			}
		})
	}
}

// On ranks the permutation test is the Wilcoxon rank-sum (Mann–Whitney) test, whose tables
// give, for 5 against 5, P(U <= 4) = 12/252 = 0.0476 (the one-sided 5% critical value is
// U = 4) and P(U <= 5) = 19/252 = 0.0754.
func TestFallTestMannWhitneyTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		after []float64 // ranks of the after group; the before group has the rest of 1..10
		p     float64
	}{
		{[]float64{1, 2, 3, 4, 5}, 1.0 / 252},    // U = 0
		{[]float64{1, 2, 3, 5, 8}, 12.0 / 252},   // U = 4
		{[]float64{1, 2, 3, 6, 8}, 19.0 / 252},   // U = 5
		{[]float64{6, 7, 8, 9, 10}, 252.0 / 252}, // U = 25
	}
	for _, tt := range tests {
		var before []float64
		in := map[float64]bool{}
		for _, r := range tt.after {
			in[r] = true
		}
		for r := 1.0; r <= 10; r++ {
			if !in[r] {
				before = append(before, r)
			}
		}
		if got := FallTest(before, tt.after, 1); !near(got.P, tt.p, 1e-12) {
			t.Errorf("after ranks %v: P = %.6f, want %.6f", tt.after, got.P, tt.p)
		}
	}
}

// Past ExactLimit the test samples; its p-value must agree with the exact one (computed by
// counting: 12 against 12 pass/fail trials, 9 of 12 passing before and 3 of 12 after, is
// Fisher's one-sided p = 0.00605).
func TestFallTestSampled(t *testing.T) {
	t.Parallel()
	before := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}
	after := []float64{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	got := FallTest(before, after, 7)
	if got.Exact {
		t.Fatalf("12 against 12 should be sampled (%.0f splits)", Binomial(24, 12))
	}
	// Fisher's exact one-sided p for the table [[9,3],[3,9]]: sum over k<=3 of
	// C(12,k)C(12,12-k)/C(24,12).
	var want float64
	for k := 0; k <= 3; k++ {
		want += Binomial(12, k) * Binomial(12, 12-k)
	}
	want /= Binomial(24, 12)
	if !near(got.P, want, 0.003) {
		t.Errorf("sampled P = %.5f, exact %.5f", got.P, want)
	}
	if again := FallTest(before, after, 7); again != got {
		t.Errorf("same seed gave %+v then %+v", got, again)
	}
}

// Under the null hypothesis a valid p-value is at most a with probability at most a.
func TestFallTestValidUnderNull(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const runs = 4000
	hits := 0
	for range runs {
		b, a := make([]float64, 5), make([]float64, 5)
		for i := range 5 {
			b[i], a[i] = float64(rng.IntN(3))/2, float64(rng.IntN(3))/2 // discrete scores 0, 0.5, 1
		}
		if FallTest(b, a, 1).P <= 0.05 {
			hits++
		}
	}
	if rate := float64(hits) / runs; rate > 0.05+0.01 {
		t.Errorf("P <= 0.05 in %.3f of null runs", rate)
	}
}

func TestBinomial(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n, k int
		want float64
	}{{8, 4, 70}, {10, 5, 252}, {20, 10, 184756}, {5, 0, 1}, {5, 6, 0}, {52, 5, 2598960}} {
		if got := Binomial(tt.n, tt.k); got != tt.want {
			t.Errorf("Binomial(%d, %d) = %v, want %v", tt.n, tt.k, got, tt.want)
		}
	}
}

func TestTarone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		pmins []float64
		want  float64
	}{
		{"none", nil, 0.05},
		{"all able is Bonferroni", []float64{0.001, 0.001, 0.001, 0.001}, 0.05 / 4},
		// Eight cases always score the same: only the two that vary count.
		{"constant cases drop out", []float64{1, 1, 1, 1, 1, 1, 1, 1, 0.004, 0.004}, 0.05 / 2},
		// At K=1 all three could reach 0.05; at K=2 only the two 1/252s can reach 0.025.
		{"one sample sides drop out", []float64{1.0 / 252, 1.0 / 252, 1.0 / 6}, 0.025},
	}
	for _, tt := range tests {
		if got := Tarone(tt.pmins, 0.05); !near(got, tt.want, 1e-15) {
			t.Errorf("%s: Tarone = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestQuantileType7(t *testing.T) {
	t.Parallel()
	// R: quantile(c(1, 2, 3, 4), c(0.1, 0.5, 0.975)) gives 1.3, 2.5, 3.925.
	xs := []float64{1, 2, 3, 4}
	for _, tt := range []struct{ q, want float64 }{{0.1, 1.3}, {0.5, 2.5}, {0.975, 3.925}, {0, 1}, {1, 4}} {
		if got := quantile(xs, tt.q); !near(got, tt.want, 1e-12) {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestPairedBootstrap(t *testing.T) {
	t.Parallel()
	// Every case fell by exactly 0.25: no resample can say otherwise.
	iv := PairedBootstrap([]float64{1, 0.75, 0.5}, []float64{0.75, 0.5, 0.25}, 0.95, 2000, 1)
	if !near(iv.Estimate, -0.25, 1e-12) || !near(iv.Lo, -0.25, 1e-12) || !near(iv.Hi, -0.25, 1e-12) || !iv.Below() {
		t.Errorf("constant fall: %+v", iv)
	}
	// Many normal differences: the percentile interval approaches mean ± 1.96 sd/√n.
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	b, a := make([]float64, n), make([]float64, n)
	var sum, ss float64
	for i := range n {
		b[i] = 0.5
		a[i] = 0.5 + 0.02 + 0.1*rng.NormFloat64()
		d := a[i] - b[i]
		sum += d
		ss += d * d
	}
	mean := sum / float64(n)
	se := math.Sqrt((ss/float64(n) - mean*mean) / float64(n))
	iv = PairedBootstrap(b, a, 0.95, DefaultResamples, 9)
	if !near(iv.Lo, mean-1.96*se, 0.15*se) || !near(iv.Hi, mean+1.96*se, 0.15*se) {
		t.Errorf("interval %+v, normal theory [%.4f, %.4f]", iv, mean-1.96*se, mean+1.96*se)
	}
	if again := PairedBootstrap(b, a, 0.95, DefaultResamples, 9); again != iv {
		t.Errorf("same seed gave %+v then %+v", iv, again)
	}
	if iv := PairedBootstrap(nil, nil, 0.95, 100, 1); iv != (Interval{}) {
		t.Errorf("no cases: %+v", iv)
	}
}

// A results file from elsewhere may hold any number of trials: the test's work stays bounded
// (fewer sampled splits for larger groups) and its p-value valid, never NaN.
func TestFallTestBoundedWork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		n1, n2 int
		splits int // sampled splits
	}{
		{"a run's maximum", 100, 100, MonteCarloResamples},
		{"few baseline scores", 20, 100, MonteCarloResamples},
		{"hostile", 200_000, 200_000, MaxDraws / 200_000},
		{"more scores than draws", 1, MaxDraws + 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before, after := make([]float64, tt.n1), make([]float64, tt.n2)
			for i := range before {
				before[i] = 1
			}
			for i := range after {
				after[i] = float64(i % 2)
			}
			got := FallTest(before, after, 7)
			if got.Exact || got.Draws != tt.splits*tt.n2 || got.Draws > MaxDraws {
				t.Errorf("FallTest drew %d scores (exact %v), want %d splits of %d, at most %d", got.Draws, got.Exact, tt.splits, tt.n2, MaxDraws)
			}
			if math.IsNaN(got.P) || math.IsNaN(got.PMin) || got.P < got.PMin || got.P > 1 || got.PMin <= 0 {
				t.Errorf("FallTest = %+v: want 0 < PMin <= P <= 1", got)
			}
			if min := FallMinP(before, after); math.IsNaN(min) || min < 0 || min > 1 { // 0: below float64's range
				t.Errorf("FallMinP = %v", min)
			}
		})
	}
}

// The same scores in another order give the same sum to the last bit; plain float64 addition
// does not (0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1).
func TestSumOrderIndependent(t *testing.T) {
	t.Parallel()
	vals := []float64{0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 0.7, 1e-300, 0.9999999999999999, 0}
	var fwd, back Sum
	for i := range vals {
		fwd.Add(vals[i])
		back.Add(vals[len(vals)-1-i])
	}
	if fwd.Mean(1) != back.Mean(1) {
		t.Errorf("sums %v and %v differ by order", fwd.Mean(1), back.Mean(1))
	}
	// The case that moved a run's mean in its last digit: plain addition depends on order.
	x, y, z := 0.1, 0.2, 0.3 // variables: Go adds constants exactly
	if (x+y)+z == (z+y)+x {
		t.Fatal("plain float addition was expected to depend on order here")
	}
	var a, b Sum
	for _, v := range []float64{0.1, 0.2, 0.3} {
		a.Add(v)
	}
	for _, v := range []float64{0.3, 0.2, 0.1} {
		b.Add(v)
	}
	if a.Mean(1) != b.Mean(1) || a.Mean(1) != 0.6 {
		t.Errorf("0.1+0.2+0.3 = %v, 0.3+0.2+0.1 = %v; want 0.6 both ways", a.Mean(1), b.Mean(1))
	}
	var odd Sum
	odd.Add(math.NaN())
	odd.Add(math.Inf(1))
	odd.Add(0.5)
	if odd.Mean(1) != 0.5 {
		t.Errorf("NaN and Inf should count as 0: %v", odd.Mean(1))
	}
	var zero Sum
	if zero.Mean(1) != 0 {
		t.Errorf("empty sum %v", zero.Mean(1))
	}
}
