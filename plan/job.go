package plan

import (
	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// Job is one case bound to the provider that answers it: what the plan stage hands the run
// stage.
type Job struct {
	Case     *suite.Case
	Provider providers.Provider // nil when the case cannot run (see Err)
	// Err is a problem that prevents the case from running (unknown target, unset secret,
	// failed healthcheck): the case becomes an error record without invoking anything.
	Err error
	// Warnings are load-time warnings attached to the case (shown in reports).
	Warnings []suite.Diagnostic
	// File is the eval file as shown in reports.
	File string
	// Workspace is the directory the case's suite runs in (AgentV 4.x `workspace`), "" if
	// none: agent targets work there.
	Workspace string
	// RunID is the run's id, told to the workspace's hooks as eval_run_id.
	RunID string
	// Target is the name of the target the job was planned for, "" when none was chosen: an
	// error record names it even when its provider could not be made.
	Target string
}
