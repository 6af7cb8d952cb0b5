package main

import (
	"cmp"
	"fmt"
	"sync"

	"github.com/agentv/action/results"
)

// budget is the run's account against --budget-usd (AgentV 4.x): what the finished cases'
// targets reported they cost. Once that reaches the limit no further case starts: each
// becomes an error record saying so, as in 4.42.4. Safe for concurrent use; a nil budget
// spends nothing and never stops.
type budget struct {
	limit  float64
	source string // what set the limit, for the error: "" is --budget-usd
	mu     sync.Mutex
	spent  float64
	notRun int // cases stopped by the budget
}

func newBudget(limit float64) *budget {
	if limit <= 0 {
		return nil
	}
	return &budget{limit: limit}
}

// add counts a finished case's cost: its trials' when it ran several times, else its
// target's.
func (b *budget) add(rec *results.Record) {
	if b == nil {
		return
	}
	var cost float64
	if len(rec.Trials) > 0 {
		for _, t := range rec.Trials {
			if t.CostUSD != nil {
				cost += *t.CostUSD
			}
		}
	} else if ts := rec.TraceSummary; ts != nil && ts.CostUSD != nil {
		cost = *ts.CostUSD
	}
	if cost != cost || cost < 0 { // NaN or negative: a provider's nonsense costs nothing
		return
	}
	b.mu.Lock()
	b.spent += cost
	b.mu.Unlock()
}

// stop is the runner's Stop: an error once the spent cost has reached the limit.
func (b *budget) stop() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent < b.limit {
		return nil
	}
	b.notRun++
	// 4.42.4's words for it (packages/core/src/evaluation/orchestrator.ts:1018), which its
	// users' tools may look for in index.jsonl's error, then why the case did not run.
	return fmt.Errorf("Run budget exceeded ($%.4f / $%.4f): not run (%s)", b.spent, b.limit, cmp.Or(b.source, "--budget-usd"))
}

// record is the budget as results and reports state it, nil without a budget.
func (b *budget) record() *results.RunBudget {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return &results.RunBudget{LimitUSD: b.limit, SpentUSD: b.spent, Exceeded: b.spent >= b.limit, NotRun: b.notRun}
}
