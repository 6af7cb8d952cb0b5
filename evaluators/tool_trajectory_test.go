package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

func TestToolTrajectory(t *testing.T) {
	t.Parallel()
	calls := []suite.Message{
		{Role: "assistant", ToolCalls: json.RawMessage(`[{"tool": "search", "input": {"query": "risk", "limit": 5}, "duration_ms": 30},
			{"tool": "read", "input": {"file_path": "a.md"}, "duration_ms": 900}]`)},
		{Role: "assistant", ToolCalls: json.RawMessage(`[{"name": "search", "arguments": "{\"query\": \"more\"}"}]`)},
		text("assistant", "done"),
	}
	tests := []struct {
		name      string
		settings  string
		output    []suite.Message
		trace     *results.TraceSummary
		wantScore float64
		wantMiss  string
		wantErr   string
	}{
		{name: "any order met", settings: `{"mode": "any_order", "minimums": {"search": 2, "read": 1}}`, output: calls, wantScore: 1},
		{name: "any order half", settings: `{"mode": "any_order", "minimums": {"search": 3, "read": 1}}`, output: calls, wantScore: 0.5,
			wantMiss: "search called 2 time(s), want at least 3"},
		{name: "any order from trace counts", settings: `{"mode": "any_order", "minimums": {"search": 1}}`,
			trace: &results.TraceSummary{ToolCallsByName: map[string]int{"search": 1}}, wantScore: 1},
		{name: "in order with args", settings: `{"mode": "in_order", "expected": [{"tool": "search", "args": {"query": "risk"}}, {"tool": "search", "args": {"query": "more"}}]}`,
			output: calls, wantScore: 1},
		{name: "in order wrong order", settings: `{"mode": "in_order", "expected": [{"tool": "read"}, {"tool": "search", "args": {"query": "risk"}}]}`,
			output: calls, wantScore: 0.5, wantMiss: "step 2: search called with other arguments"},
		{name: "in order missing tool", settings: `{"mode": "in_order", "expected": [{"tool": "write"}]}`, output: calls, wantScore: 0,
			wantMiss: "expected write (step 1) not called in order"},
		{name: "exact match with latency", settings: `{"mode": "exact", "expected": [{"tool": "search", "args": "any", "max_duration_ms": 100},
			{"tool": "read", "max_duration_ms": 500}, {"tool": "search"}]}`, output: calls, wantScore: 0.8, wantMiss: "read took 900 ms, max 500"},
		{name: "exact length mismatch", settings: `{"mode": "exact", "expected": [{"tool": "search"}, {"tool": "read"}]}`, output: calls, wantScore: 1,
			wantMiss: "expected 2 tool calls, got 3"},
		{name: "exact wrong tool", settings: `{"mode": "exact", "expected": [{"tool": "read"}, {"tool": "read"}, {"tool": "search"}, {"tool": "x"}]}`,
			output: calls, wantScore: 0.5, wantMiss: "call 1: expected read, got search"},
		{name: "no trace", settings: `{"mode": "any_order", "minimums": {"search": 1}}`, wantScore: 0, wantMiss: "no trace available"},
		{name: "no mode", settings: `{}`, wantErr: "needs `mode`"},
		{name: "bad mode", settings: `{"mode": "sometimes"}`, wantErr: `mode: unknown mode "sometimes"`},
		{name: "in order without expected", settings: `{"mode": "in_order"}`, wantErr: "needs `expected"},
		{name: "bad args", settings: `{"mode": "exact", "expected": [{"tool": "a", "args": 3}]}`, wantErr: "args: must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := &suite.EvaluatorSpec{Name: "traj", Type: TypeToolTrajectory, Weight: 1, Settings: json.RawMessage(tt.settings)}
			in := riskInput(riskCase(t.TempDir(), spec), "done")
			in.Response.OutputMessages = tt.output
			in.Trace = tt.trace
			res := Evaluate(t.Context(), in, &Options{}).Results[0]
			if tt.wantErr != "" {
				if !strings.Contains(res.Error, tt.wantErr) {
					t.Errorf("error = %q, want %q", res.Error, tt.wantErr)
				}
				return
			}
			if res.Error != "" || res.Score != tt.wantScore {
				t.Errorf("score %v error %q, want %v (hits %q misses %q)", res.Score, res.Error, tt.wantScore, res.Hits, res.Misses)
			}
			if tt.wantMiss != "" && !strings.Contains(strings.Join(res.Misses, "|"), tt.wantMiss) {
				t.Errorf("misses %q lack %q", res.Misses, tt.wantMiss)
			}
			if tt.wantMiss == "" && len(res.Misses) > 0 {
				t.Errorf("unexpected misses %q", res.Misses)
			}
		})
	}
}
