// Command agentv evaluates AI agents in CI: it runs AgentV eval suites against targets,
// judges the answers and reports (JUnit XML, job summary, sticky PR comment, outputs),
// gating on score thresholds. Without a subcommand under GitHub Actions it is the Action.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/agentv/action/internal/procinit"
)

func main() {
	// First of all: move the GitHub and Actions tokens out of the environment children could
	// read (this may re-execute the binary), and as a container's PID 1 act as its init.
	secrets := procinit.Start(func(msg string) { fmt.Fprintln(os.Stderr, "agentv: warning: "+msg) })
	// AGENTV_CPUPROFILE=file writes a CPU profile of the run (for benchmarking agentv itself).
	if path := os.Getenv("AGENTV_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c := New()
	c.Environ, c.Getenv = secrets.Environ(c.Environ), secrets.Getenv(c.Getenv)
	code := c.Main(ctx, os.Args[1:])
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
