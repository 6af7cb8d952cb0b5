//go:build unix

package prompt

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
)

// A guideline file read from disk for the request is left out when it is a FIFO, rather than
// blocking the case.
func TestBuildRequestGuidelineFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "team.instructions.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c := &suite.Case{ID: "x", Input: []suite.Message{reqText("user", "q")}, GuidelinePaths: []string{fifo}}
	var req *providers.Request
	done := make(chan struct{})
	go func() { defer close(done); req = Build(c, providers.ModeLM) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("blocked reading a FIFO guideline file")
	}
	if req.Guidelines != "" {
		t.Errorf("guidelines %q, want none", req.Guidelines)
	}
}
