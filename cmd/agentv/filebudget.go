package main

import (
	"maps"
	"slices"

	"github.com/agentv/action/plan"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// budgets are the run's cost accounts: --budget-usd's for the whole run when given, else one
// for each eval file that sets its own (a 5.x file's evaluate_options.budget_usd), since
// AgentV 5 keeps one account per eval file unless the run has one
// (apps/cli/src/commands/eval/run-eval.ts:1341-1344, :2361-2365 at v5.3.1-next.1). A nil
// budgets spends nothing and never stops.
type budgets struct {
	run   *budget
	files map[string]*budget // by eval file as jobs and records name it
}

// newBudgets makes the accounts: the flag's, else the files' (pre: the files loaded before
// the run; display names a file as jobs do).
func newBudgets(flag float64, pre []*suite.Suite, display func(string) string) *budgets {
	if b := newBudget(flag); b != nil {
		return &budgets{run: b}
	}
	var files map[string]*budget
	for _, s := range pre {
		if s == nil || s.BudgetUSD <= 0 {
			continue
		}
		if files == nil {
			files = map[string]*budget{}
		}
		name := display(s.Path)
		files[name] = &budget{limit: s.BudgetUSD, source: "evaluate_options.budget_usd of " + name}
	}
	if files == nil {
		return nil
	}
	return &budgets{files: files}
}

// of is the account job or record of file f counts against, nil if none.
func (b *budgets) of(file string) *budget {
	switch {
	case b == nil:
		return nil
	case b.run != nil:
		return b.run
	}
	return b.files[file]
}

// stop is the runner's Stop.
func (b *budgets) stop(j *plan.Job) error { return b.of(j.File).stop() }

// add counts a finished case's cost.
func (b *budgets) add(rec *results.Record) { b.of(rec.File).add(rec) }

// record is the budget as results and reports state it: the run's, else the files' summed,
// nil without a budget.
func (b *budgets) record() *results.RunBudget {
	if b == nil {
		return nil
	}
	if b.run != nil {
		return b.run.record()
	}
	var sum *results.RunBudget
	for _, name := range slices.Sorted(maps.Keys(b.files)) { // the same sum every run
		r := b.files[name].record()
		if sum == nil {
			sum = &results.RunBudget{Files: true}
		}
		sum.LimitUSD += r.LimitUSD
		sum.SpentUSD += r.SpentUSD
		sum.Exceeded = sum.Exceeded || r.Exceeded
		sum.NotRun += r.NotRun
	}
	return sum
}
