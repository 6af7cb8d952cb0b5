package runner

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/agentv/action/providers"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// A Python judge that iterates the trace and the output messages works on a plain-text answer
// from a mock target: the trace's lists are [] and {}, and the answer is one assistant message.
func TestRunCodeJudgePayloadShapes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	mock, _, err := providers.New(&targets.Target{Name: "m", Kind: targets.KindMock, Provider: "mock",
		Settings: map[string]*targets.Setting{"response": {Key: "response", Value: "Paris"}}}, providers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	script := `import json, sys
p = json.load(sys.stdin)
t = p["trace_summary"]
print(json.dumps({"score": 1, "details": {"tools": len(t["tool_names"]), "by_name": len(t["tool_calls_by_name"]),
    "messages": p["output_messages"]}}))`
	s := newSuite(1)
	s.Cases[0].Evaluators = []*suite.EvaluatorSpec{{Name: "shapes", Type: suite.TypeCodeJudge, Weight: 1,
		Script: []string{"python3", "-c", script}, Cwd: t.TempDir()}}
	var col collector
	New(testOptions(1), col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, mock)))
	r := col.recs[0]
	e := r.EvaluatorResults[0]
	if e.Error != "" {
		t.Fatalf("judge failed: %s", e.Error)
	}
	var got struct {
		Tools, ByName int
		Messages      []struct{ Role, Content string }
	}
	if err := json.Unmarshal(e.Details, &struct {
		Tools    *int `json:"tools"`
		ByName   *int `json:"by_name"`
		Messages any  `json:"messages"`
	}{&got.Tools, &got.ByName, &got.Messages}); err != nil {
		t.Fatalf("details %s: %v", e.Details, err)
	}
	if got.Tools != 0 || got.ByName != 0 || len(got.Messages) != 1 || got.Messages[0].Role != "assistant" || got.Messages[0].Content != "Paris" {
		t.Errorf("details = %s", e.Details)
	}
	if r.TraceSummary == nil {
		t.Error("record of a mock target has no trace_summary")
	}
}
