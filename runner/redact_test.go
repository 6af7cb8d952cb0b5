package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/results"
)

// TestRedactRecordToolNames: a model picks its tool names and may put a key in one.
func TestRedactRecordToolNames(t *testing.T) {
	t.Parallel()
	red := &redact.Redactor{}
	red.Add("sk-tool-secret-123")
	rec := &results.Record{TraceSummary: &results.TraceSummary{
		ToolNames:       []string{"read_file", "sk-tool-secret-123", "use_sk-tool-secret-123"},
		ToolCallsByName: map[string]int{"read_file": 2, "sk-tool-secret-123": 1, "use_sk-tool-secret-123": 3},
	}}
	redactRecord(rec, red)
	want := &results.TraceSummary{
		ToolNames:       []string{"***", "read_file", "use_***"},
		ToolCallsByName: map[string]int{"***": 1, "read_file": 2, "use_***": 3},
	}
	if diff := cmp.Diff(want, rec.TraceSummary); diff != "" {
		t.Error(diff)
	}
}
