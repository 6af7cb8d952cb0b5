package gate

import (
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
)

// caseIndex finds case records that repeat another: the one rule of Replay and MergeCheck, so
// a merge accepts exactly what a replay of its merged output accepts.
type caseIndex struct {
	keys  map[[2]uint64]casePos // hash of file, dataset, target and id of each case record
	seeds [2]maphash.Seed
}

// casePos is where a case record was read: which merged file (0 for a replay) and line.
type casePos struct {
	file int32
	line int
}

// add records the case rec (its trimmed id) read at file and line. It returns false and the
// position of the first record when rec repeats it.
func (x *caseIndex) add(rec *results.Record, id string, file, line int) (casePos, bool) {
	if x.keys == nil {
		x.keys = map[[2]uint64]casePos{}
		x.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	}
	// Two eval files may share ids, and results of one case against two targets may be
	// merged, so a record repeats another only for the same file, dataset and target
	// (AgentV 2.5's records name no file). Records are told apart by two 64-bit hashes of
	// those, not the strings: a large file's cases cost 16 bytes each here.
	var key [2]uint64
	for i, seed := range x.seeds {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, part := range [...]string{rec.File, rec.Dataset, rec.Target, id} {
			h.WriteString(part)
			h.WriteByte(0)
		}
		key[i] = h.Sum64()
	}
	if first, ok := x.keys[key]; ok {
		return first, false
	}
	x.keys[key] = casePos{file: int32(file), line: line}
	return casePos{}, true
}

// Listed counts the items of a problem and keeps the first few (maxListed) described.
type Listed struct {
	N     int
	first []string
}

// Add counts an item, described by format and args when it is among the first few.
func (l *Listed) Add(format string, args ...any) {
	l.N++
	if len(l.first) < maxListed {
		l.first = append(l.first, fmt.Sprintf(format, args...))
	}
}

// String lists the first few items, with "; ..." when there are more.
func (l *Listed) String() string {
	s := strings.Join(l.first, "; ")
	if l.N > maxListed {
		s += "; ..."
	}
	return s
}

// MergeCheck finds case records of one results file that repeat a case of another, which
// make the merge invalid (its replay would find them); repeats within one file are that
// file's replay's to report. Call File before the case records of each file, then Case.
type MergeCheck struct {
	index caseIndex
	names []string
	dups  Listed
}

// File starts the case records of the results file called name.
func (m *MergeCheck) File(name string) {
	m.names = append(m.names, name)
}

// Case takes a case record of the current file and its line number.
func (m *MergeCheck) Case(rec *results.Record, line int) {
	id := strings.TrimSpace(rec.EvalID)
	if id == "" || len(m.names) == 0 {
		return // a record without an id is its file's problem
	}
	cur := len(m.names) - 1
	first, ok := m.index.add(rec, id, cur, line)
	if ok || int(first.file) == cur {
		return
	}
	m.dups.Add("%s line %d repeats %q of %s line %d", m.names[cur], line, id, m.names[first.file], first.line)
}

// Problems returns why the files cannot merge, nil when they can.
func (m *MergeCheck) Problems() []string {
	if m.dups.N == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d case %s in more than one of the merged files (the same case, eval file, dataset and target; "+
		"merge the results of different cases, or of one case against different targets): %s",
		m.dups.N, textfmt.Plural(m.dups.N, "record is", "records are"), m.dups.String())}
}
