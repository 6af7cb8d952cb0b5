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
		v4        bool // the case is from an AgentV 4.x file
		output    []suite.Message
		trace     *results.TraceSummary
		wantScore float64
		wantMiss  string
		wantErr   string
	}{
		{name: "any order met", settings: `{"mode": "any_order", "minimums": {"search": 2, "read": 1}}`, output: calls, wantScore: 1},
		{name: "any order half", settings: `{"mode": "any_order", "minimums": {"search": 3, "read": 1}}`, output: calls, wantScore: 0.5,
			wantMiss: "search: called 2 times (required >=3)"},
		{name: "any order from trace counts", settings: `{"mode": "any_order", "minimums": {"search": 1}}`,
			trace: &results.TraceSummary{ToolCallsByName: map[string]int{"search": 1}}, wantScore: 1},
		{name: "in order with args", settings: `{"mode": "in_order", "expected": [{"tool": "search", "args": {"query": "risk"}}, {"tool": "search", "args": {"query": "more"}}]}`,
			output: calls, wantScore: 1},
		{name: "in order wrong order", settings: `{"mode": "in_order", "expected": [{"tool": "read"}, {"tool": "search", "args": {"query": "risk"}}]}`,
			output: calls, wantScore: 0.5, wantMiss: "Expected search at position 1: tool found at 2 but args mismatch"},
		{name: "in order missing tool", settings: `{"mode": "in_order", "expected": [{"tool": "write"}]}`, output: calls, wantScore: 0,
			wantMiss: "Expected write at position 0, not found in remaining trace"},
		{name: "exact match with latency", settings: `{"mode": "exact", "expected": [{"tool": "search", "args": "any", "max_duration_ms": 100},
			{"tool": "read", "max_duration_ms": 500}, {"tool": "search"}]}`, output: calls, wantScore: 0.8, wantMiss: "read took 900ms (max: 500ms)"},
		{name: "exact length mismatch", settings: `{"mode": "exact", "expected": [{"tool": "search"}, {"tool": "read"}]}`, output: calls, wantScore: 1,
			wantMiss: "Expected 2 tool calls, got 3"},
		{name: "exact wrong tool", settings: `{"mode": "exact", "expected": [{"tool": "read"}, {"tool": "read"}, {"tool": "search"}, {"tool": "x"}]}`,
			output: calls, wantScore: 0.5, wantMiss: "Position 0: expected read, got search"},
		{name: "no trace", settings: `{"mode": "any_order", "minimums": {"search": 1}}`, wantScore: 0, wantMiss: "No trace available for evaluation"},
		// AgentV 4.42.4's rules, checked side by side: the cursor of in_order passes every call
		// it looks at, max_duration_ms counts even when its tool is not found, 4.x files
		// compare arguments exactly by default, args_match at either level, subset and superset.
		{name: "in order: a missing tool uses up the rest", settings: `{"mode": "in_order", "expected": [{"tool": "write", "max_duration_ms": 1}, {"tool": "search"}]}`,
			output: calls, wantScore: 0, wantMiss: "Expected search at position 1, not found in remaining trace"},
		{name: "v4 default args exact", v4: true, settings: `{"mode": "in_order", "expected": [{"tool": "search", "args": {"query": "risk"}}]}`,
			output: calls, wantScore: 0, wantMiss: "tool found at 0 but args mismatch"},
		{name: "v4 args_match superset", v4: true, settings: `{"mode": "in_order", "args_match": "superset", "expected": [{"tool": "search", "args": {"query": "risk"}}]}`,
			output: calls, wantScore: 1},
		{name: "item args_match wins", v4: true, settings: `{"mode": "exact", "args_match": "ignore", "expected": [{"tool": "search", "args": {"query": "x"}, "args_match": "subset"}, {"tool": "read", "args": {"file_path": "b"}}, {"tool": "search", "args": {"query": "more", "page": 2}, "args_match": "subset"}]}`,
			output: calls, wantScore: 2.0 / 3, wantMiss: "Position 0: search args mismatch"},
		{name: "args_match fields", v4: true, settings: `{"mode": "in_order", "args_match": ["query", "x.y"], "expected": [{"tool": "search", "args": {"query": "risk", "limit": 9, "x": {"y": null}}}]}`,
			output: calls, wantScore: 0, wantMiss: "args mismatch"},
		{name: "args_match fields skip what the item does not give", v4: true, settings: `{"mode": "in_order", "args_match": ["query", "x.y"], "expected": [{"tool": "search", "args": {"query": "risk", "limit": 9}}]}`,
			output: calls, wantScore: 1},
		{name: "superset", settings: `{"mode": "superset", "expected": [{"tool": "search"}, {"tool": "search"}, {"tool": "search"}, {"tool": "read", "args": "any"}]}`,
			output: calls, wantScore: 0.75, wantMiss: "Expected search not found in actual trajectory"},
		{name: "subset", settings: `{"mode": "subset", "expected": [{"tool": "search"}]}`, output: calls, wantScore: 2.0 / 3,
			wantMiss: "Position 1: read is not in allowed set"},
		{name: "subset of no calls", v4: true, settings: `{"mode": "subset", "expected": [{"tool": "search"}]}`, wantScore: 1},
		{name: "v4 any order without a trace", v4: true, settings: `{"mode": "any_order", "minimums": {"search": 0}}`, wantScore: 1},
		{name: "empty expected", settings: `{"mode": "exact", "expected": []}`, output: calls, wantScore: 1},
		{name: "bad args_match", settings: `{"mode": "exact", "args_match": "loose", "expected": []}`, wantErr: `unknown args_match "loose"`},
		{name: "no mode", settings: `{}`, wantErr: "needs `mode`"},
		{name: "bad mode", settings: `{"mode": "sometimes"}`, wantErr: `mode: unknown mode "sometimes"`},
		{name: "in order without expected", settings: `{"mode": "in_order"}`, wantErr: "needs `expected"},
		{name: "bad args", settings: `{"mode": "exact", "expected": [{"tool": "a", "args": 3}]}`, wantErr: "args: must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := &suite.EvaluatorSpec{Name: "traj", Type: "tool_trajectory", Weight: 1, Settings: json.RawMessage(tt.settings)}
			in := riskInput(riskCase(t.TempDir(), spec), "done")
			in.Response.OutputMessages = tt.output
			in.Trace = tt.trace
			if tt.v4 {
				in.Case.Suite.Grading = suite.GradingRulesOf(suite.Dialect4)
			}
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
