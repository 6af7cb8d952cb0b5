package runner

import (
	"context"
	"fmt"

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
	err := workspace.RunHook(ctx, h, j.Workspace, j.Case.Suite.Dir, workspace.HookRun{TestID: j.Case.ID, CaseInput: &q},
		timeout, workspace.Options{RunID: j.RunID, Env: r.opts.Evaluators.Env})
	if err != nil {
		return fmt.Errorf("workspace %s hook failed: %w", which, err)
	}
	return nil
}
