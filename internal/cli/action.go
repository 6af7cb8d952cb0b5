package cli

import (
	"context"
	"fmt"

	"github.com/agentv/action/gate"
)

// runAction runs the binary as the GitHub Action (no subcommand, GITHUB_ACTIONS=true).
func (c *Command) runAction(ctx context.Context) int {
	fmt.Fprintln(c.Stderr, "agentv: Action mode is not wired yet")
	return gate.ExitInvalid
}
