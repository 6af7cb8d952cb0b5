package evaluators

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// TestV5StepCount counts trajectory steps by type and name as 5.x does: an answer message with
// three tool calls (one a shell command, one with a result) is message, 3 tool-call steps, a
// tool_result span and the final response, after the input message.
func TestV5StepCount(t *testing.T) {
	t.Parallel()
	calls := `[{"tool": "search", "input": {"q": "a"}}, {"tool": "Search", "input": {"q": "b"}, "output": "found"},
		{"tool": "shell", "input": {"command": "ls -la"}}]`
	for _, tc := range []struct {
		typ, value string
		pass       bool
		reason     string
	}{
		{"trajectory:step-count", "{type: tool, min: 1, max: 5}", true, "Matched 2 trajectory step(s) for type=tool (expected 1-5). Matches: tool:search, tool:Search"},
		{"trajectory:step-count", "{type: tool, name: search, max: 1}", false, "Matched 2 trajectory step(s) for type=tool, pattern=search (expected at most 1). Matches: tool:search, tool:Search"},
		{"trajectory:step-count", "{type: command, pattern: ls, min: 1}", true, "Matched 1 trajectory step(s) for type=command, pattern=ls (expected at least 1). Matches: command:ls -la"},
		{"trajectory:step-count", "{min: 7, max: 7}", true, "Matched 7 trajectory step(s) (expected 7-7). Matches: message:message, message:message, tool:search, tool:Search, span:tool_result, command:ls -la, message:final_response"},
		{"trajectory:step-count", "{type: [message, span], max: 2}", false, "Matched 4 trajectory step(s) for type=message|span (expected at most 2). Matches: message:message, message:message, span:tool_result, message:final_response"},
		{"not-trajectory:step-count", "{type: tool, max: 1}", true, "Trajectory step count did not satisfy the forbidden range"},
		{"trajectory:step-count", "{type: tool, max: 1}\n        negate: true", true, "Trajectory step count did not satisfy the forbidden range"},
	} {
		in := loadV5Case(t, fmt.Sprintf("      - type: %s\n        value: %s\n", tc.typ, tc.value), "done")
		in.Response.OutputMessages[0].ToolCalls = []byte(calls)
		res := Evaluate(context.Background(), in, nil).Results[0]
		if (res.Score == 1) != tc.pass || (res.Verdict == results.BandPass) != tc.pass || res.Reasoning != tc.reason || res.Type != "trajectory:step-count" {
			t.Errorf("%s %s: score %v type %s reason %q, want pass %v %q", tc.typ, tc.value, res.Score, res.Type, res.Reasoning, tc.pass, tc.reason)
		}
	}
}

// TestV5StepCountBadValue: a value without a number min or max is an error where it is written.
func TestV5StepCountBadValue(t *testing.T) {
	t.Parallel()
	for _, value := range []string{"tool", "{type: tool}", "{type: tool, min: many}", "{type: 3, min: 1}"} {
		dir := t.TempDir()
		file := writeFile(t, dir, "v5.eval.yaml", "prompts: [\"{{ input }}\"]\ntests:\n  - id: t\n    vars: {input: hi}\n    assert:\n      - type: trajectory:step-count\n        value: "+value+"\n")
		s := suite.Load(file, suite.LoadOptions{Cwd: dir})
		if !suite.HasErrors(s.Diagnostics) || !strings.Contains(fmt.Sprint(s.Diagnostics), "v5.eval.yaml:7") {
			t.Errorf("%s: want an error at line 7, got %v", value, s.Diagnostics)
		}
	}
}

// TestV5MetricEntries: 5.x keeps cost by `budget`, latency by `threshold` and token-usage by
// its valid limits, and skips with a warning what it cannot read.
func TestV5MetricEntries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		entry string
		kept  bool
		warn  string
	}{
		{"{type: cost, budget: 0.02}", true, ""},
		{"{type: cost, threshold: 0.02}", false, "cost assertion skipped"},
		{"{type: cost, max_cost_usd: 0.02}", false, "cost assertion skipped"},
		{"{type: cost, budget: -1}", false, "must be a number >= 0"},
		{"{type: latency, threshold: 1000}", true, ""},
		{"{type: latency, budget: 1000}", false, "latency assertion skipped"},
		{"{type: token-usage, maxTotal: 10}", true, ""},
		{"{type: token-usage, max_total: lots, max_output: 5}", true, `"max_total" must be a number >= 0`},
		{"{type: token-usage, max_total: lots}", false, "token-usage assertion skipped"},
	} {
		dir := t.TempDir()
		file := writeFile(t, dir, "v5.eval.yaml", "prompts: [\"{{ input }}\"]\ntests:\n  - id: t\n    vars: {input: hi}\n    assert:\n      - "+tc.entry+"\n      - {type: contains, value: hi}\n")
		s := suite.Load(file, suite.LoadOptions{Cwd: dir})
		if suite.HasErrors(s.Diagnostics) || len(s.Cases) != 1 {
			t.Fatalf("%s: %v", tc.entry, s.Diagnostics)
		}
		if got := len(s.Cases[0].Evaluators) == 2; got != tc.kept {
			t.Errorf("%s: kept %v, want %v", tc.entry, got, tc.kept)
		}
		if diags := fmt.Sprint(s.Diagnostics); tc.warn == "" && len(s.Diagnostics) > 0 || !strings.Contains(diags, tc.warn) {
			t.Errorf("%s: diagnostics %s, want %q", tc.entry, diags, tc.warn)
		}
	}
}
