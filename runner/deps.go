package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agentv/action/plan"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// AgentV 4.x `depends_on`: a test waits until the tests it names (in its file, on the same
// target) have finished. When one of them errored — a failed quality score does not count, as
// in AgentV 4.42.4 (packages/core/src/evaluation/orchestrator.ts, checkDependencies) — the
// test's `on_dependency_failure` decides: skip (the default) and fail record it as an error
// without running it, naming the dependencies that failed; run runs it anyway. A test so
// recorded is itself an error, so the tests that depend on it follow suit.

// depKey identifies one run of a case: its file, id and target.
type depKey struct {
	s  *suite.Suite
	id string
	p  providers.Provider
}

// depNode is when one case run finished, and whether it errored.
type depNode struct {
	done    chan struct{}
	errored bool // written before done is closed
	planned bool // a job of the run stands for it
	once    sync.Once
}

func (n *depNode) finish(errored bool) {
	n.once.Do(func() {
		n.errored = errored
		close(n.done)
	})
}

// depGraph holds the nodes of the files with dependencies.
type depGraph struct {
	mu    sync.Mutex
	nodes map[depKey]*depNode
}

func (g *depGraph) node(k depKey) *depNode {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.nodes == nil {
		g.nodes = map[depKey]*depNode{}
	}
	n := g.nodes[k]
	if n == nil {
		n = &depNode{done: make(chan struct{})}
		g.nodes[k] = n
	}
	return n
}

// track returns the node of a job of a file with dependencies: its record marks it finished.
func (g *depGraph) track(j *plan.Job) *depNode {
	n := g.node(depKey{j.Case.Suite, j.Case.ID, j.Provider})
	g.mu.Lock()
	n.planned = true
	g.mu.Unlock()
	return n
}

// release finishes the nodes no job stands for (a dependency left out by the shard; the
// planner refuses a file whose dependency --eval-id leaves out), once every job has
// arrived: tests waiting for them run.
func (g *depGraph) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, n := range g.nodes {
		if !n.planned {
			n.finish(false)
		}
	}
}

// waiter returns a function that blocks until every dependency of j has finished and returns
// the error that keeps j from running (nil: run it), or ctx's error when the run was
// cancelled first. The dependencies' nodes are made now, on the stream's goroutine, so that
// release sees those no job stands for.
func (g *depGraph) waiter(j *plan.Job) func(ctx context.Context) error {
	c := j.Case
	nodes := make([]*depNode, len(c.DependsOn))
	for i, id := range c.DependsOn {
		nodes[i] = g.node(depKey{c.Suite, id, j.Provider})
	}
	return func(ctx context.Context) error { return g.wait(ctx, c, nodes) }
}

func (g *depGraph) wait(ctx context.Context, c *suite.Case, nodes []*depNode) error {
	var failed []string
	for i, n := range nodes {
		select {
		case <-n.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if n.errored {
			failed = append(failed, c.DependsOn[i])
		}
	}
	if len(failed) == 0 {
		return nil
	}
	switch c.OnDependencyFailure {
	case suite.DependencyRun:
		return nil
	case suite.DependencyFail:
		return &DependencyError{Skipped: false, Failed: failed}
	}
	return &DependencyError{Skipped: true, Failed: failed}
}

// DependencyError is why a test was not run: a test it depends on errored.
type DependencyError struct {
	Skipped bool     // on_dependency_failure skip (else fail)
	Failed  []string // ids of the dependencies that errored
}

func (e *DependencyError) Error() string {
	how := "failed"
	if e.Skipped {
		how = "skipped"
	}
	return fmt.Sprintf("%s: dependency failed (%s): not run, as its on_dependency_failure says", how, strings.Join(e.Failed, ", "))
}
