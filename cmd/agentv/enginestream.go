package main

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/agentv/action/config"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/suite"
)

// loadState is what loading found, for the outcome once loading is over.
type loadState struct {
	diags    []suite.Diagnostic // every file's diagnostics, in file order
	jobErrs  []string           // distinct reasons why cases cannot run, in order
	seenErr  map[string]bool
	jobs     int  // jobs planned
	files    int  // eval files loaded
	complete bool // every file was read to its end (false after cancellation)
}

func (st *loadState) add(j *plan.Job) {
	st.jobs++
	if j.Err == nil {
		return
	}
	if st.seenErr == nil {
		st.seenErr = map[string]bool{}
	}
	if msg := j.Err.Error(); !st.seenErr[msg] {
		st.seenErr[msg] = true
		st.jobErrs = append(st.jobErrs, msg)
	}
}

// preloadYAML parses every YAML eval file before any case runs, so that the run's total is
// known from the start (the engine's Total). JSONL files are read as their cases run; their
// non-blank lines are counted first instead, unless --eval-id selects cases by id (then the
// total is known once every file is read). pre[i] is files[i]'s suite, nil for JSONL.
//
// A shard reads every file first, JSONL ones too, to cut its part of the plan (plan.Shard).
func (e *Engine) preloadYAML(p *plan.Planner, files []string) (pre []*suite.Suite) {
	pre = make([]*suite.Suite, len(files))
	total, known := 0, true
	sharded := p.Shard() != nil
	var hashes, streamed []uint64 // every selected case's; the JSONL ones'
	for i, f := range files {
		isJSONL := strings.EqualFold(filepath.Ext(f), ".jsonl")
		if isJSONL && sharded {
			opts := loadOptions(e.Cfg.Cwd, e.Cfg.Workspace, e.Cfg.Environ, e.Cfg.NoDotenv, e.Redactor)
			opts.OnCase = func(c *suite.Case) bool {
				if p.SelectedByID(c) {
					streamed = append(streamed, config.CaseHash(c))
				}
				return true
			}
			suite.Load(f, opts) // problems are reported when the file is read to run
			continue
		}
		if isJSONL {
			n, err := suite.CountJSONLCases(f)
			if err != nil || e.Cfg.filtered() || e.Cfg.Rerun != nil {
				known = false // the loader reports an unreadable file
			}
			total += n
			continue
		}
		pre[i] = suite.Load(f, loadOptions(e.Cfg.Cwd, e.Cfg.Workspace, e.Cfg.Environ, e.Cfg.NoDotenv, e.Redactor))
		p.CheckSelection(pre[i], pre[i].Cases)
		if sharded {
			for _, c := range pre[i].Cases {
				if p.SelectedByID(c) {
					hashes = append(hashes, config.CaseHash(c))
				}
			}
		}
	}
	if sharded {
		p.Balance(append(hashes, streamed...))
		for _, h := range streamed {
			if p.Shard().HasHash(h) {
				total++
			}
		}
	}
	for _, s := range pre {
		if s == nil {
			continue
		}
		for _, c := range s.Cases {
			total += p.Runs(s, c)
		}
	}
	if known {
		e.total.Store(int64(total))
	}
	return pre
}

// stream loads the files in order and sends a job for every selected case: JSONL cases as
// their lines are read, YAML cases (parsed already: pre) in file order. It closes ch when
// done or when ctx is cancelled.
func (e *Engine) stream(ctx context.Context, p *plan.Planner, files []string, pre []*suite.Suite, st *loadState, ch chan<- *plan.Job) {
	defer close(ch)
	send := func(j *plan.Job) bool {
		select {
		case ch <- j:
			st.add(j)
			return true
		case <-ctx.Done():
			return false
		}
	}
	for i, f := range files {
		if ctx.Err() != nil {
			return
		}
		seen := 0 // diagnostics of the file already searched for case warnings
		s := pre[i]
		pre[i] = nil // its cases are released as they run
		if s == nil {
			opts := loadOptions(e.Cfg.Cwd, e.Cfg.Workspace, e.Cfg.Environ, e.Cfg.NoDotenv, e.Redactor)
			opts.OnCase = func(c *suite.Case) bool {
				// A case's warnings are recorded before it is handed over.
				var warns []suite.Diagnostic
				if ds := c.Suite.Diagnostics; len(ds) > seen {
					warns = plan.CaseWarnings(ds[seen:], e.display)[c.ID]
					seen = len(ds)
				}
				for _, j := range p.Jobs(c.Suite, c, warns) {
					if !send(j) {
						return false
					}
				}
				return true
			}
			s = suite.Load(f, opts)
		}
		st.diags = append(st.diags, s.Diagnostics...)
		st.files++
		cases := s.Cases // YAML only: streamed JSONL cases were sent already
		s.Cases = nil
		var warns map[string][]suite.Diagnostic
		if len(cases) > 0 {
			warns = plan.CaseWarnings(s.Diagnostics, e.display)
		}
		for i, c := range cases {
			cases[i] = nil // released once it has run
			for _, j := range p.Jobs(s, c, warns[c.ID]) {
				if !send(j) {
					return
				}
			}
		}
		if ctx.Err() != nil {
			return
		}
	}
	st.complete = true
	e.total.Store(int64(st.jobs))
}

// finish fills the outcome from what loading found: diagnostics (display paths), targets,
// and the problems that make the run invalid.
func (e *Engine) finish(out *Outcome, p *plan.Planner, st *loadState) {
	out.Diagnostics = append(out.Diagnostics, st.diags...)
	diags, notices, targets := p.Found()
	out.Diagnostics = append(out.Diagnostics, diags...)
	out.Notices = append(out.Notices, notices...)
	out.Targets = append(out.Targets, targets...)
	for i := range out.Diagnostics {
		d := &out.Diagnostics[i]
		d.File = e.display(d.File)
		d.Message = e.Redactor.String(d.Message)
	}
	for _, d := range out.Diagnostics {
		if d.IsError() {
			out.Problems = append(out.Problems, e.Redactor.String(d.Error()))
		}
	}
	// A case that cannot run for a configuration reason (unknown target, unset variable,
	// missing targets file) makes the run invalid; each distinct reason is listed once.
	for _, msg := range st.jobErrs {
		out.Problems = append(out.Problems, e.Redactor.String(msg))
	}
	if e.Cfg.filtered() && st.jobs == 0 && st.files > 0 && st.complete && (e.Cfg.Rerun == nil || len(e.Cfg.Rerun.keys) == 0) {
		out.Problems = append(out.Problems, "no eval case matched "+e.Cfg.filterFlags())
	}
}
