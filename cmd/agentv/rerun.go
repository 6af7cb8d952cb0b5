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
	// PerTarget settles a case on each target apart (--rerun-failed, keyed by test and
	// target in 4.42.4, run-eval.ts:1247); otherwise a case runs again on every target when
	// one of its records is not settled (--retry-errors, retry-errors.ts:34).
	PerTarget bool
	keys      map[[3]string]bool // dataset, id and (PerTarget) target carried over
	recs      []*results.Record  // the records carried over, in file order
}

// key is what a record settles: its case, on its target when PerTarget.
func (rr *rerunFrom) key(dataset, id, target string) [3]string {
	if !rr.PerTarget {
		target = ""
	}
	return [3]string{dataset, id, target}
}

// keepPassed settles a case that passed (--rerun-failed: failed and errored cases run again).
func keepPassed(r *results.Record) bool { return r.Verdict == results.VerdictPass }

// keepScored settles a case that did not error (--retry-errors: errored cases run again).
func keepScored(r *results.Record) bool { return r.Verdict != results.VerdictError }

// asRecorded gives record r of an earlier run the verdict that run gave it, as 4.42.4's
// --rerun-failed reads a row's execution_status (run-eval.ts:83): a 4.x row's status, our
// record's verdict; a record without one (AgentV 2.5's) is graded with threshold.
func asRecorded(r *results.Record, threshold float64) {
	switch {
	case r.FromV4Index && r.V4Status == "ok" && r.Error == "":
		r.Verdict = results.VerdictPass
	case r.FromV4Index && r.V4Status == "quality_failure" && r.Error == "":
		r.Verdict = results.VerdictFail
	case r.Verdict == "" || r.FromV4Index:
		regrade(r, threshold)
	}
}

// read carries over the earlier run's records of the cases (per target, when PerTarget) Keep
// settles on every record, by that run's verdicts (asRecorded), graded with threshold as this
// run's reports grade them. No earlier results: every case runs, with a notice.
func (rr *rerunFrom) read(threshold float64) (notice string, err error) {
	path, err := results.ResolvePath(rr.Path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rr.Flag, err)
	}
	var recs []*results.Record
	err = results.ScanFile(path, func(r *results.Record) error {
		asRecorded(r, threshold)
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
	settled := map[[3]string]bool{}
	for _, r := range recs {
		k := rr.key(r.Dataset, r.EvalID, r.Target)
		if ok, seen := settled[k]; !seen || ok {
			settled[k] = rr.Keep(r)
		}
	}
	rr.keys = map[[3]string]bool{}
	for _, r := range recs {
		k := rr.key(r.Dataset, r.EvalID, r.Target)
		if settled[k] {
			regrade(r, threshold)
			rr.keys[k] = true
			rr.recs = append(rr.recs, r)
		}
	}
	return fmt.Sprintf("%s: %d case records of %s carried over; the other cases run", rr.Flag, len(rr.recs), path), nil
}

// runs reports whether case c runs: not carried over (per target: runsOn).
func (rr *rerunFrom) runs(c *suite.Case) bool {
	return rr == nil || rr.PerTarget || !rr.keys[rr.key(c.Dataset(), c.ID, "")]
}

// runsOn reports whether case c runs on target: not carried over there.
func (rr *rerunFrom) runsOn(c *suite.Case, target string) bool {
	return rr == nil || !rr.PerTarget || !rr.keys[rr.key(c.Dataset(), c.ID, target)]
}

// carried reports whether record r was carried over, not run this time.
func (rr *rerunFrom) carried(r *results.Record) bool {
	return rr != nil && rr.keys[rr.key(r.Dataset, r.EvalID, r.Target)]
}

// selectOn is the planner's choice of targets for a rerun per target, else nil.
func (rr *rerunFrom) selectOn() func(c *suite.Case, target string) bool {
	if rr == nil || !rr.PerTarget {
		return nil
	}
	return rr.runsOn
}
