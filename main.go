// Command agentv evaluates AI agents in CI: it runs AgentV eval suites against targets,
// judges the answers and reports (JUnit XML, job summary, sticky PR comment, outputs),
// gating on score thresholds. Without a subcommand under GitHub Actions it is the Action.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/agentv/action/internal/cli"
)

func main() {
	// AGENTV_CPUPROFILE=file writes a CPU profile of the run (for benchmarking agentv itself).
	if path := os.Getenv("AGENTV_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.New().Main(ctx, os.Args[1:])
	stop()
	pprof.StopCPUProfile()
	// AGENTV_MEMPROFILE=file writes a heap profile at the end of the run.
	if path := os.Getenv("AGENTV_MEMPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	os.Exit(code)
}
