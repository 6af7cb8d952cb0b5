package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// rerunFrom is an earlier run whose settled cases are carried over instead of run again
// (--rerun-failed, --retry-errors): AgentV 4.x's flags, reading its run directories too.
type rerunFrom struct {
	Path string                       // results file or run directory
	Keep func(r *results.Record) bool // whether a record settles its case
	Flag string                       // the flag, for messages
	keys map[[2]string]bool           // dataset and id of the cases carried over
	recs []*results.Record            // the records carried over, in file order
}

// keepPassed settles a case that passed (--rerun-failed: failed and errored cases run again).
func keepPassed(r *results.Record) bool { return r.Verdict == results.VerdictPass }

// keepScored settles a case that did not error (--retry-errors: errored cases run again).
func keepScored(r *results.Record) bool { return r.Verdict != results.VerdictError }

// read loads the earlier run's records, graded with threshold, and keeps those of the cases
// every record of which Keep settles (a case on several targets runs again on all of them if
// any of its records is not settled, as 4.42.4 does). No earlier results: nothing is carried
// and every case runs, with a notice.
func (rr *rerunFrom) read(threshold float64) (notice string, err error) {
	path, err := results.ResolvePath(rr.Path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rr.Flag, err)
	}
	var recs []*results.Record
	err = results.ScanFile(path, func(r *results.Record) error {
		regrade(r, threshold)
		recs = append(recs, r)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Sprintf("%s: no earlier results at %s; every case runs", rr.Flag, path), nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("%s: could not read the earlier results: %w", rr.Flag, err)
	}
	settled := map[[2]string]bool{}
	for _, r := range recs {
		k := [2]string{r.Dataset, r.EvalID}
		if ok, seen := settled[k]; !seen || ok {
			settled[k] = rr.Keep(r)
		}
	}
	rr.keys = map[[2]string]bool{}
	for _, r := range recs {
		k := [2]string{r.Dataset, r.EvalID}
		if settled[k] {
			rr.keys[k] = true
			rr.recs = append(rr.recs, r)
		}
	}
	return fmt.Sprintf("%s: %d case records of %s carried over; the other cases run", rr.Flag, len(rr.recs), path), nil
}

// runs reports whether case c runs: its case was not carried over.
func (rr *rerunFrom) runs(c *suite.Case) bool {
	return rr == nil || !rr.keys[[2]string{c.Dataset(), c.ID}]
}
