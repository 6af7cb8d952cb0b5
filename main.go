// Command agentv evaluates AI agents in CI: it runs AgentV eval suites against targets,
// judges the answers and reports (JUnit XML, job summary, sticky PR comment, outputs),
// gating on score thresholds. Without a subcommand under GitHub Actions it is the Action.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentv/action/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.New().Main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
