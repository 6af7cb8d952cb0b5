package runner

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentv/action/plan"
	"github.com/agentv/action/workspace"
)

// The per-test hooks of an AgentV 4.x workspace.
const (
	beforeEach = "before_each"
	afterEach  = "after_each"
)

// hook runs the job's suite's before_each or after_each hook in its workspace, as AgentV
// 4.42.4 does (packages/core/src/evaluation/workspace/setup.ts, prepareEvalCaseWorkspace, and
// orchestrator.ts, runEvalCase): before_each before the target is asked, its failure the
// test's error (the target is not asked); after_each once the target answered, before the
// graders, its failure only a warning. Each trial runs them again; a conversation runs
// before_each only, and a batched answer neither (it was asked before any test ran).
func (r *Runner) hook(ctx context.Context, j *plan.Job, which string) error {
	if j.Workspace == "" || j.Case == nil || j.Case.Suite == nil || j.Case.Suite.Workspace == nil {
		return nil
	}
	ws := j.Case.Suite.Workspace
	h, timeout := ws.BeforeEach, workspace.DefaultHookTimeout
	if which == afterEach {
		h, timeout = ws.AfterEach, workspace.DefaultLateHookTimeout
	}
	if h == nil {
		return nil
	}
	q := j.Case.Question
	run := workspace.HookRun{TestID: j.Case.ID, CaseInput: &q}
	opts := workspace.Options{RunID: j.RunID, Env: r.opts.Evaluators.Env}
	if len(h.Extensions) == 0 {
		if err := workspace.RunHook(ctx, h, j.Workspace, j.Case.Suite.Dir, run, timeout, opts); err != nil {
			return fmt.Errorf("workspace %s hook failed: %w", which, err)
		}
		return nil
	}
	// A 5.x extension: afterEach starts from what the test's beforeEach returned, as AgentV
	// 5.3.1-next.1 hands a test's extension state from one hook to the next.
	run.CaseMetadata = j.Case.Metadata
	var state *workspace.ExtensionState
	if which == afterEach {
		if st, ok := eachStates.LoadAndDelete(j); ok {
			state = st.(*workspace.ExtensionState)
		}
	}
	st, err := workspace.RunHookState(ctx, h, j.Workspace, j.Case.Suite.Dir, run, timeout, opts, state)
	if err != nil {
		return fmt.Errorf("%s extension failed: %w", h.Name, err)
	}
	if which == beforeEach && st != nil && ws.AfterEach != nil {
		eachStates.Store(j, st)
	}
	return nil
}

// eachStates holds what a job's beforeEach extensions returned until its afterEach runs.
var eachStates sync.Map // *plan.Job → *workspace.ExtensionState

// afterEach runs the job's after_each hook when its time has come: a 4.x hook once the target
// answered (graded false), 5.x afterEach extensions once the answer is graded (graded true;
// orchestrator.ts:2315 at v5.3.1-next.1, after evaluateCandidate). Its failure is logged and
// returned for the record's warning.
func (r *Runner) afterEach(ctx context.Context, j *plan.Job, graded bool) error {
	if j.Case == nil || j.Case.Suite == nil {
		return nil
	}
	ws := j.Case.Suite.Workspace
	if ws == nil || ws.AfterEach == nil || (len(ws.AfterEach.Extensions) > 0) != graded {
		return nil
	}
	err := r.hook(ctx, j, afterEach)
	if err != nil {
		r.opts.Logf("warning: %s: %s", j.Case.ID, r.opts.Redactor.String(err.Error()))
	}
	return err
}
