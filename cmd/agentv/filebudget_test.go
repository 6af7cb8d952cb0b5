package main

import (
	"strings"
	"testing"

	"github.com/agentv/action/plan"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// TestBudgets checks whose account a case counts against: --budget-usd's for the whole run,
// else its own eval file's (a 5.x evaluate_options.budget_usd), files without one never stop.
func TestBudgets(t *testing.T) {
	t.Parallel()
	files := []*suite.Suite{{Path: "a.eval.yaml", BudgetUSD: 1}, {Path: "b.eval.yaml", BudgetUSD: 2}, {Path: "c.eval.yaml"}, nil}
	cost := func(file string, usd float64) *results.Record {
		return &results.Record{File: file, TraceSummary: &results.TraceSummary{CostUSD: &usd}}
	}
	job := func(file string) *plan.Job { return &plan.Job{File: file} }
	same := func(s string) string { return s }

	t.Run("per file", func(t *testing.T) {
		t.Parallel()
		b := newBudgets(0, files, same)
		b.add(cost("a.eval.yaml", 1.5))
		b.add(cost("c.eval.yaml", 9))
		err := b.stop(job("a.eval.yaml"))
		if err == nil || !strings.Contains(err.Error(), "evaluate_options.budget_usd of a.eval.yaml") {
			t.Errorf("a spent: stop = %v", err)
		}
		for _, f := range []string{"b.eval.yaml", "c.eval.yaml"} {
			if err := b.stop(job(f)); err != nil {
				t.Errorf("%s: stop = %v, want its own account (none spent or none at all)", f, err)
			}
		}
		r := b.record()
		if r == nil || r.LimitUSD != 3 || r.SpentUSD != 1.5 || !r.Exceeded || r.NotRun != 1 || !r.Files {
			t.Errorf("record = %+v", r)
		}
		if s := r.String(); !strings.Contains(s, "(the eval files' evaluate_options.budget_usd)") {
			t.Errorf("String() = %q, want the files' budgets named", s)
		}
	})
	t.Run("flag wins", func(t *testing.T) {
		t.Parallel()
		b := newBudgets(5, files, same)
		b.add(cost("a.eval.yaml", 1.5))
		if err := b.stop(job("a.eval.yaml")); err != nil {
			t.Errorf("stop = %v, want the run's $5 to hold", err)
		}
		b.add(cost("c.eval.yaml", 4))
		if err := b.stop(job("b.eval.yaml")); err == nil || !strings.Contains(err.Error(), "(--budget-usd)") {
			t.Errorf("stop = %v, want the run's budget spent", err)
		}
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		b := newBudgets(0, []*suite.Suite{{Path: "c.eval.yaml"}}, same)
		b.add(cost("c.eval.yaml", 4))
		if b != nil || b.stop(job("c.eval.yaml")) != nil || b.record() != nil {
			t.Errorf("no budget: %+v", b)
		}
	})
}
