package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentv/action/internal/atomicfile"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// stampLayout is the time format of records: RFC 3339 in UTC with milliseconds.
const stampLayout = "2006-01-02T15:04:05.000Z"

// resultsFile is a run's results file while the run goes on: a temporary file beside its
// destination (see atomicfile) that holds the start record and then each case as it
// finishes, put in place with the end record once the outcome is known, also after a
// cancellation. A killed run leaves the temporary file, start record and finished cases
// without an end record, and the previous results file untouched.
type resultsFile struct {
	f *atomicfile.File
	w *results.Writer
	// counted is set when the writer of the case records counts them (cases) and keeps the
	// first write error (err): the end record then holds that count, not the reports' total.
	counted bool
	cases   int
	err     error
}

// createResults starts the results file at path with its start record.
func createResults(path string, start *results.RunRecord) (*resultsFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("could not create results directory %s: %w", filepath.Dir(path), err)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("could not create results file: %w", err)
	}
	rf := &resultsFile{f: f, w: results.NewWriter(f)}
	if err := rf.w.WriteRun(start); err != nil {
		f.Abort()
		return nil, err
	}
	return rf, nil
}

// commit writes the end record and puts the file in place.
func (rf *resultsFile) commit(end *results.RunRecord) error {
	if rf.err != nil {
		rf.f.Abort()
		return fmt.Errorf("could not write results file: %w", rf.err)
	}
	if rf.counted {
		end.Cases = new(rf.cases)
	}
	if err := rf.w.Flush(); err != nil {
		rf.f.Abort()
		return err
	}
	if err := rf.w.WriteRun(end); err != nil {
		rf.f.Abort()
		return err
	}
	return rf.f.Commit()
}

// endRecord is the end record of a run whose reports are run.
func endRecord(out *Outcome, run *report.Run, now time.Time) *results.RunRecord {
	c := run.Counts
	mean := c.MeanScore
	end := &results.RunRecord{
		Kind: results.KindRunEnd, Format: results.RunFormat, Version: version(),
		Timestamp: now.UTC().Format(stampLayout),
		Planned:   new(out.Planned), PlannedComplete: &out.PlannedComplete,
		Gate:    run.Gate.Record(),
		Outcome: string(run.Decision.Outcome), Reason: run.Decision.Reason,
		Cases: new(c.Total), Passed: c.Passed, Failed: c.Failed, Errors: c.Errors,
		Cancelled: out.Cancelled, Problems: out.Problems, DurationMS: out.Duration.Milliseconds(),
		Shard: out.Shard, Budget: run.Budget,
	}
	if c.Total > 0 {
		end.MeanScore = &mean
	}
	return end
}
