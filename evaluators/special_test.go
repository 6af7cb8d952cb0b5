//go:build unix

package evaluators

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/suite"
)

// A composite's aggregator prompt file that is a FIFO errors the evaluator: reading it used
// to block the case forever.
func TestCompositePromptFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "aggregate.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := &suite.EvaluatorSpec{Name: "combo", Type: "composite", Weight: 1,
		Settings: json.RawMessage(`{"aggregator": {"type": "llm_judge", "prompt": "aggregate.md"}}`),
		Members:  []*suite.EvaluatorSpec{faSpec(`{"fields": [{"path": "riskLevel"}]}`)}}
	in := riskInput(riskCase(dir, spec), `{"riskLevel": "High"}`)
	j := &fakeJudge{name: "j", reply: `{"score": 1}`}
	done := make(chan *Outcome, 1)
	go func() { done <- Evaluate(t.Context(), in, judgeOpts(j, nil)) }()
	select {
	case out := <-done:
		res := out.Results[0]
		if !out.Errored || !strings.Contains(res.Error, "could not read the aggregator prompt") || !strings.Contains(res.Error, "named pipe (FIFO)") {
			t.Errorf("errored %v, error %q", out.Errored, res.Error)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Evaluate blocked on the aggregator prompt")
	}
}
