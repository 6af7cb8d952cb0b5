package workspace

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/agentv/action/suite"
)

// environmentSetupID is the test id a 5.x environment's setup runs under (AgentV's
// prepareSharedWorkspaceSetup names it so).
const environmentSetupID = "__environment_setup__"

// inPlace are the host environments' directories of this process, which Remove leaves alone.
var inPlace sync.Map // dir → true

// prepareWorkdir readies a 5.x host environment's directory, as AgentV 5.3.1-next.1 does
// (environment/host.ts, prepareHostEnvironment): the directory is made when missing and used
// in place, not copied; the setup command runs there once, then the beforeAll extensions. The
// directory is the user's, so nothing is removed on failure and no Git baseline is made in it
// (graders see no file changes).
func prepareWorkdir(ctx context.Context, ws *suite.Workspace, evalDir string, opts Options) (string, error) {
	dir := ws.Workdir
	inPlace.Store(dir, true)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("making the environment's workdir: %w", err)
	}
	if h := ws.Setup; h != nil {
		if err := runCommandHook(ctx, h, dir, evalDir, opts.RunID, HookRun{TestID: environmentSetupID}, DefaultSetupTimeout, opts.env()); err != nil {
			return "", fmt.Errorf("environment setup failed: %w", err)
		}
	}
	if err := beforeAll(ctx, ws, dir, evalDir, opts); err != nil {
		return "", err
	}
	return dir, nil
}
