package config

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/agentv/action/suite"
)

// Shard is one part of a suite split across jobs: Index (1-based) of Count.
//
// Each case has a stable hash of its dataset and id (CaseHash). The selected cases' hashes,
// sorted, are cut into Count runs of equal length (Balance), and shard I takes the I-th run:
// the shards differ by at most one case, the file order plays no part, and adding or removing
// a case moves at most one case across each cut.
type Shard struct {
	Index, Count int
	lo, hi       uint64 // this shard's hashes: lo <= h < hi, where set
	hasLo, hasHi bool
	empty        bool // more shards than cases: this one has none
	balanced     bool
	plan         string
	planCases    int
}

func (s *Shard) String() string {
	if s == nil { // no shard: the flag's help shows no default
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// CaseHash is the stable hash of a case that shards and plan identities use: its dataset and
// id, not its position in a file.
func CaseHash(c *suite.Case) uint64 {
	h := sha256.Sum256([]byte(c.Dataset() + "\x00" + c.ID))
	return binary.BigEndian.Uint64(h[:8])
}

// Balance cuts the plan: hashes are CaseHash of every case the run selects before sharding
// (in any order; the slice is sorted). It also fixes the plan's identity: shards of one plan
// share it.
func (s *Shard) Balance(hashes []uint64) {
	slices.Sort(hashes)
	n := len(hashes)
	cut := func(k int) (uint64, bool) { // the first hash of run k (0-based)
		i := k * n / s.Count
		if k >= s.Count || i >= n {
			return 0, false
		}
		return hashes[i], true
	}
	// Equal hashes (one dataset and id twice) all go to the later run of a cut among them.
	s.lo, s.hasLo, s.empty = 0, false, false
	if s.Index > 1 {
		s.lo, s.hasLo = cut(s.Index - 1)
		s.empty = !s.hasLo
	}
	s.hi, s.hasHi = cut(s.Index)
	s.balanced = true
	d := sha256.New()
	fmt.Fprintf(d, "agentv-plan/1 %d %d\n", s.Count, n)
	var b [8]byte
	for _, h := range hashes {
		binary.BigEndian.PutUint64(b[:], h)
		d.Write(b[:])
	}
	s.plan = hex.EncodeToString(d.Sum(nil)[:8])
	s.planCases = n
}

// Has reports whether the case belongs to this shard. Before Balance, cases are split by
// their hash modulo Count (stable, but only balanced on average).
func (s *Shard) Has(c *suite.Case) bool {
	return s.HasHash(CaseHash(c))
}

// HasHash is Has for a case's CaseHash.
func (s *Shard) HasHash(h uint64) bool {
	if s.Count <= 1 {
		return true
	}
	switch {
	case !s.balanced:
		return int(h%uint64(s.Count)) == s.Index-1
	case s.empty:
		return false
	}
	return (!s.hasLo || h >= s.lo) && (!s.hasHi || h < s.hi)
}

// Plan returns the identity of the plan and how many cases it selected in all shards
// together; "" before Balance.
func (s *Shard) Plan() (string, int) { return s.plan, s.planCases }
