package report

import (
	"cmp"
	"container/heap"

	"github.com/agentv/action/results"
)

// minDetailsBytes is the smallest a case's details block can be:
// "<details>\n<summary>❌  · 0.000 · fail</summary>\n\nSource:  · 0ms\n\n</details>\n\n".
const minDetailsBytes = 80

// maxFailText is how many failed or errored cases may keep their text for the Markdown details,
// in failOrder: a row and a details block take at least this share of the largest budget, and
// the layout shows no more, so a collected run renders as the same run held in memory.
const maxFailText = SummaryLimit / (minRowBytes + minDetailsBytes)

// firstCases keeps the n cases that come first by order, so a run with 100,000 failures keeps
// the few records a surface can show. It is a max-heap: the root is the one that goes next.
type firstCases struct {
	n     int
	order func(a, b *Case) int
	h     []*Case
}

func (f *firstCases) Len() int           { return len(f.h) }
func (f *firstCases) Less(i, j int) bool { return f.order(f.h[j], f.h[i]) < 0 } // max-heap
func (f *firstCases) Swap(i, j int)      { f.h[i], f.h[j] = f.h[j], f.h[i] }
func (f *firstCases) Push(x any)         { f.h = append(f.h, x.(*Case)) }
func (f *firstCases) Pop() any {
	x := f.h[len(f.h)-1]
	f.h = f.h[:len(f.h)-1]
	return x
}

// offer takes c when it is among the n first so far, and returns the case it pushed out.
func (f *firstCases) offer(c *Case) (taken bool, out *Case) {
	if f.n <= 0 {
		return false, nil
	}
	if len(f.h) < f.n {
		heap.Push(f, c)
		c.holds++
		return true, nil
	}
	if f.order(c, f.h[0]) >= 0 {
		return false, nil
	}
	out = f.h[0]
	out.holds--
	f.h[0] = c
	c.holds++
	heap.Fix(f, 0)
	return true, out
}

// reportOrder is the order of every report: file, line, id.
func reportOrder(a, b *Case) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.EvalID, b.EvalID))
}

// failOrder is the order of the failure table and details: errored cases first (they decide
// the outcome), then failed cases by ascending score, each in report order on ties.
func failOrder(a, b *Case) int {
	ea, eb := a.Verdict == results.VerdictError, b.Verdict == results.VerdictError
	if ea != eb {
		if ea {
			return -1
		}
		return 1
	}
	if ea {
		return reportOrder(a, b)
	}
	return lowerScore(a, b)
}

// lowerScore orders failed cases as annotations rank them: lowest score first, then position.
func lowerScore(a, b *Case) int { return cmp.Or(cmp.Compare(a.Score, b.Score), reportOrder(a, b)) }

// failKeeper keeps the records of the first maxFailText failures in failOrder (Markdown
// details), and for annotations of the first worst errored cases and the worst failed cases.
type failKeeper struct {
	details, errored, failed firstCases
}

func newFailKeeper(worst int) *failKeeper {
	return &failKeeper{
		details: firstCases{n: maxFailText, order: failOrder},
		errored: firstCases{n: worst, order: reportOrder},
		failed:  firstCases{n: worst, order: lowerScore},
	}
}

// offer offers a failure to every list it belongs to; it reports whether one took it and
// returns the cases no list holds any more.
func (k *failKeeper) offer(c *Case) (taken bool, released []*Case) {
	lists := []*firstCases{&k.details, &k.failed}
	if c.Verdict == results.VerdictError {
		lists[1] = &k.errored
	}
	for _, l := range lists {
		ok, out := l.offer(c)
		taken = taken || ok
		if out != nil && out.holds == 0 {
			released = append(released, out)
		}
	}
	return taken, released
}
