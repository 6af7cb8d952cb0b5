package config

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentv/action/suite"
)

// cases returns n cases of two datasets.
func cases(n int) []*suite.Case {
	a, b := &suite.Suite{Dataset: "a"}, &suite.Suite{Dataset: "b"}
	out := make([]*suite.Case, n)
	for i := range out {
		s := a
		if i%3 == 0 {
			s = b
		}
		out[i] = &suite.Case{ID: fmt.Sprintf("case-%04d", i), Suite: s}
	}
	return out
}

// split assigns each case to its shards of count, balanced over the plan of all cases.
func split(cs []*suite.Case, count int) (byShard [][]string, plans []string) {
	hashes := make([]uint64, len(cs))
	for i, c := range cs {
		hashes[i] = CaseHash(c)
	}
	byShard = make([][]string, count)
	for i := 1; i <= count; i++ {
		sh := Shard{Index: i, Count: count}
		sh.Balance(append([]uint64(nil), hashes...))
		id, n := sh.Plan()
		if n != len(cs) {
			panic("plan cases")
		}
		plans = append(plans, id)
		for _, c := range cs {
			if sh.Has(c) {
				byShard[i-1] = append(byShard[i-1], c.Suite.Dataset+"/"+c.ID)
			}
		}
	}
	return byShard, plans
}

func TestShardsAreDisjointCoveringAndBalanced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cases, count int }{{1000, 4}, {1000, 7}, {40, 4}, {2, 4}, {0, 3}, {5, 1}, {100, 100}, {3, 3}} {
		t.Run(fmt.Sprintf("%d cases in %d", tc.cases, tc.count), func(t *testing.T) {
			t.Parallel()
			cs := cases(tc.cases)
			byShard, plans := split(cs, tc.count)
			seen := map[string]int{}
			lo, hi := len(cs), 0
			for i, ids := range byShard {
				lo, hi = min(lo, len(ids)), max(hi, len(ids))
				for _, id := range ids {
					if prev, ok := seen[id]; ok {
						t.Fatalf("%s is in shards %d and %d", id, prev+1, i+1)
					}
					seen[id] = i
				}
				if plans[i] != plans[0] {
					t.Errorf("shard %d has plan %s, shard 1 %s", i+1, plans[i], plans[0])
				}
			}
			if len(seen) != len(cs) {
				t.Errorf("the shards hold %d of %d cases", len(seen), len(cs))
			}
			if hi-lo > 1 {
				t.Errorf("shard sizes from %d to %d, want a difference of at most 1", lo, hi)
			}
		})
	}
}

// TestAddingACaseMovesFewOthers: a new case moves at most one case across each cut (not the
// cases after it in the file, as a split by position would).
func TestAddingACaseMovesFewOthers(t *testing.T) {
	t.Parallel()
	cs := cases(1000)
	before, plansBefore := split(cs, 4)
	extra := &suite.Case{ID: "a-new-case", Suite: cs[1].Suite}
	after, plansAfter := split(append([]*suite.Case{extra}, cs...), 4)
	where := map[string]int{}
	for i, ids := range before {
		for _, id := range ids {
			where[id] = i
		}
	}
	moved := 0
	for i, ids := range after {
		for _, id := range ids {
			if old, ok := where[id]; ok && old != i {
				moved++
			}
		}
	}
	if moved > 3 {
		t.Errorf("adding a case moved %d others, want at most 3 (one per cut)", moved)
	}
	if plansBefore[0] == plansAfter[0] {
		t.Error("adding a case kept the plan identity")
	}
	// Reordering the cases changes nothing.
	rev := append([]*suite.Case(nil), cs...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	again, plansAgain := split(rev, 4)
	if plansAgain[0] != plansBefore[0] || fmt.Sprint(sortedAll(again)) != fmt.Sprint(sortedAll(before)) {
		t.Error("the split depends on the order of the cases")
	}
	if _, other := split(cs, 5); other[0] == plansBefore[0] {
		t.Error("another shard count kept the plan identity")
	}
}

func sortedAll(byShard [][]string) []string {
	var out []string
	for i, ids := range byShard {
		for _, id := range ids {
			out = append(out, fmt.Sprintf("%d %s", i, id))
		}
	}
	slices.Sort(out)
	return out
}
