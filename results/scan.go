package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/agentv/action/internal/safefile"
)

// Visitor receives the lines of a results file with their 1-based line numbers. A nil func
// skips its kind of line; an error from a func stops the scan and is returned. Callbacks may
// keep what they are given.
type Visitor struct {
	Case func(rec *Record, line int) error
	// Run receives run records, also of kinds this program does not know (a later format).
	Run func(rec *RunRecord, line int) error
}

// caseLine is a line parsed once whatever its kind: a case record, or a run record told
// apart by its "record" key (case records have none).
type caseLine struct {
	Record
	Kind *string `json:"record"`
	// Trials shadows Record.Trials so a line is never decoded with more trials than a run
	// records (TrialList).
	Trials TrialList[Trial] `json:"trials"`
	v4Row
}

// scanLines parses a results JSONL stream one line at a time, so a large file is never held
// whole. Blank lines are skipped; a malformed line stops the scan with an error naming its
// line, after v has seen every line before it. dir, when set, is the folder of the file read,
// where the answers of AgentV 4.x rows are.
func scanLines(r io.Reader, v Visitor, dir string) error {
	return EachLine(r, func(b []byte, n int) error {
		l := new(caseLine)
		if err := json.Unmarshal(b, l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if l.Kind == nil {
			l.Record.Trials = l.Trials.Items
			if l.Trials.Total > len(l.Trials.Items) {
				l.TrialsInFile = l.Trials.Total
			}
			if l.EvalID == "" && l.TestID != nil { // an AgentV 4.x row
				fromV4(&l.Record, &l.v4Row)
				if dir != "" && l.CandidateAnswer == "" {
					l.CandidateAnswer = readAnswer(dir, l.answerPath())
				}
			}
			if v.Case == nil {
				return nil
			}
			return v.Case(&l.Record, n)
		}
		if v.Run == nil {
			return nil
		}
		run := new(RunRecord)
		if err := json.Unmarshal(b, run); err != nil {
			return fmt.Errorf("line %d: run record: %w", n, err)
		}
		return v.Run(run, n)
	})
}

// EachLine calls fn with each non-blank line of r, trimmed, and its 1-based number (lines of
// up to 256 MiB); an error from fn stops it and is returned.
func EachLine(r io.Reader, fn func(line []byte, n int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	for n := 1; sc.Scan(); n++ {
		if b := bytes.TrimSpace(sc.Bytes()); len(b) > 0 {
			if err := fn(b, n); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// ScanFile passes the case records of a results file to fn; errors name the file.
func ScanFile(path string, fn func(*Record) error) error {
	return ScanFileLines(path, Visitor{Case: func(rec *Record, _ int) error { return fn(rec) }})
}

// ScanFileLines passes the lines of a results file to v; errors name the file. A FIFO or
// device is refused rather than waited on.
func ScanFileLines(path string, v Visitor) error {
	if filepath.Base(path) == IndexFile && v.Case != nil {
		// A 4.x run directory rerun: only the last row of a test on a target counts.
		skip, err := supersededRows(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if skip != nil {
			visit := v.Case
			v.Case = func(rec *Record, line int) error {
				if skip[line] {
					return nil
				}
				return visit(rec, line)
			}
		}
	}
	f, err := safefile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := scanLines(f, v, filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadRunStart returns the start record when it is the file's first line (as an eval run
// writes it), else nil: a reader can learn how the run gated before reading its cases.
func ReadRunStart(path string) (*RunRecord, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadSlice('\n')
		if len(bytes.TrimSpace(line)) > 0 || err != nil {
			var rec RunRecord
			if json.Unmarshal(line, &rec) != nil || rec.Kind != KindRunStart {
				return nil, nil
			}
			return &rec, nil
		}
	}
}
