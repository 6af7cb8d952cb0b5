// Package compare compares a run with a baseline: the results file of an earlier run. It
// matches cases by dataset and id, computes each case's score change and the change of the
// mean with its interval, and says which cases regressed or improved beyond the noise their
// trials show (package stats), which are new and which were removed.
package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Side is what a comparison keeps of one case in one run.
type Side struct {
	Score   float64         // the score the case counts with: 0 when errored, clamped to [0, 1]
	Trials  []float64       // the trials' scores (likewise counted), nil when the case ran once
	Flaky   bool            // the trials disagreed about passing
	Verdict results.Verdict // pass, fail or error
	// PassAtK is set when the trials ran under pass_at_k, which stops them at the first pass.
	PassAtK bool
}

// samples returns the scores the case's tests use: its trials, else its one score.
func (s *Side) samples() []float64 {
	if len(s.Trials) > 0 {
		return s.Trials
	}
	return []float64{s.Score}
}

// Key identifies a case across runs.
type Key struct{ Dataset, ID string }

type baseCase struct {
	target  string
	side    Side
	line    int
	matched bool
}

// Baseline is an earlier run's cases, by dataset and id.
type Baseline struct {
	Source string // for people: the file, or the workflow run it came from
	SHA256 string // of the file Load read, hex; "" for a baseline Read from a stream
	cases  map[Key][]*baseCase
	order  []Key // first appearance of each key, for listing removed cases in file order
	count  int
	cut    gate.Listed // cases whose trials were cut to a run's maximum
}

// Note says which cases held more trials than a run records ("" when none).
func (b *Baseline) Note() string {
	n := b.cut.N
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("baseline %s: %d %s more trials than the %d a run records (%s): only the first %d of each are compared",
		b.Source, n, textfmt.Plural(n, "case holds", "cases hold"), suite.MaxTrials, b.cut.String(), suite.MaxTrials)
}

// Len is the number of cases the baseline holds.
func (b *Baseline) Len() int { return b.count }

// ErrNoBaseline is returned by Load for a file that does not exist.
var ErrNoBaseline = errors.New("no baseline")

// Load reads a results file as a baseline: one written by this program or by AgentV (2.5
// records without verdicts; 4.x's index.jsonl rows), or a directory holding one (see
// results.ResolvePath). A missing file is ErrNoBaseline (wrapped); a line that is not a case
// or run record is an error naming the file, line and field.
func Load(path string) (*Baseline, error) {
	path, err := results.ResolvePath(path)
	if err != nil {
		return nil, fmt.Errorf("could not read baseline: %w", err)
	}
	f, err := safefile.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("baseline %s: %w", path, ErrNoBaseline)
		}
		return nil, fmt.Errorf("could not read baseline: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	b, err := Read(io.TeeReader(f, h))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	b.Source, b.SHA256 = path, hex.EncodeToString(h.Sum(nil))
	return b, nil
}

// baseLine is the part of a results line a baseline needs. Both id spellings are read.
type baseLine struct {
	results.CaseLine
	Trials        results.TrialList[baseTrial] `json:"trials"` // at most a run's maximum kept
	Flaky         bool                         `json:"flaky"`
	TrialStrategy string                       `json:"trial_strategy"`
}

// baseTrial is the part of a trial a baseline needs.
type baseTrial struct {
	Score   float64 `json:"score"`
	Verdict string  `json:"verdict"`
	Error   string  `json:"error"`
}

// Read reads a baseline from a results JSONL stream (see Load).
func Read(r io.Reader) (*Baseline, error) {
	b := &Baseline{cases: map[Key][]*baseCase{}}
	if err := results.EachLine(r, b.add); err != nil {
		return nil, err
	}
	return b, nil
}

// add reads line n of a baseline.
func (b *Baseline) add(raw []byte, n int) error {
	var l baseLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("line %d: not a results record: %w", n, err)
	}
	id, isCase, err := l.Check(n)
	if !isCase || err != nil {
		return err // nil for a run record
	}
	k := Key{l.Dataset, id}
	v4 := strings.TrimSpace(l.EvalID) == ""
	var again *baseCase // a 4.x row a rerun appended: it replaces the earlier one
	for _, c := range b.cases[k] {
		if c.target == l.Target {
			if !v4 {
				return fmt.Errorf("line %d: case %q of dataset %q repeats line %d", n, id, l.Dataset, c.line)
			}
			again = c
		}
	}
	errored := l.Error != "" || (l.Verdict != "" && l.Verdict != string(results.VerdictPass) && l.Verdict != string(results.VerdictFail))
	s := Side{Score: counted(*l.Score, errored), Flaky: l.Flaky, Verdict: verdict(l.Verdict, errored)}
	if l.Trials.Total > len(l.Trials.Items) {
		b.cut.Add("line %d: %q holds %d", n, id, l.Trials.Total)
	}
	for _, t := range l.Trials.Items {
		terr := t.Error != "" || t.Verdict == string(results.VerdictError)
		s.Trials = append(s.Trials, counted(t.Score, terr))
	}
	s.PassAtK = passAtK(l.TrialStrategy, len(s.Trials))
	if again != nil { // AgentV 4.42.4's readers keep a test's last row on a target
		again.side, again.line = s, n
		return nil
	}
	if len(b.cases[k]) == 0 {
		b.order = append(b.order, k)
	}
	b.cases[k] = append(b.cases[k], &baseCase{target: l.Target, side: s, line: n})
	b.count++
	return nil
}

// verdict is a record's verdict; AgentV 2.5 records have none, and count as scored.
func verdict(v string, errored bool) results.Verdict {
	switch {
	case errored:
		return results.VerdictError
	case v == "":
		return ""
	}
	return results.Verdict(v)
}

// counted is the score a case counts with: 0 when errored, clamped to [0, 1].
func counted(score float64, errored bool) float64 {
	switch {
	case errored, math.IsNaN(score), score < 0:
		return 0
	case score > 1:
		return 1
	}
	return score
}

// sideOf is what a comparison keeps of a record of the current run.
func sideOf(r *results.Record) Side {
	errored := r.Error != "" || (r.Verdict != results.VerdictPass && r.Verdict != results.VerdictFail)
	s := Side{Score: counted(r.Score, errored), Flaky: r.Flaky, Verdict: r.Verdict}
	if errored {
		s.Verdict = results.VerdictError
	}
	for _, t := range r.Trials {
		s.Trials = append(s.Trials, counted(t.Score, t.Error != "" || t.Verdict == results.VerdictError))
	}
	s.PassAtK = passAtK(r.TrialStrategy, len(s.Trials))
	return s
}

// passAtK reports whether a case's trials ran under pass_at_k.
func passAtK(strategy string, trials int) bool {
	return trials > 0 && strategy == suite.TrialsPassAtK
}
