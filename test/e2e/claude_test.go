package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeTarget runs a 4.x suite against a `provider: claude` target whose executable is a
// stand-in printing a stream Claude Code 2.1.332 really printed (a Bash call, then the answer;
// see providers/testdata/claude). The tool call reaches tool-trajectory, the result event's
// usage and cost reach the record and the token-usage and cost assertions, and the API key the
// CLI gets from the environment is masked in the results even though the agent printed it.
func TestClaudeCodeTarget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const key = "sk-ant-e2e-SECRET-1234567"
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "providers", "testdata", "claude", "tool_call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	stream := strings.ReplaceAll(string(raw), "I read prompt.md. Done.", "I read prompt.md. Done. key="+key)
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-claude")
	writeFiles(t, dir, map[string]string{
		"stream.jsonl": stream,
		"fake-claude": `#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/argv"
cat > "$(dirname "$0")/stdin"
cat "$(dirname "$0")/stream.jsonl"
`,
		".agentv/targets.yaml": fmt.Sprintf(`targets:
  - name: default
    provider: claude
    executable: %q
    model: claude-sonnet-4-5
    bypass_permissions: false
`, fake),
		"claude.eval.yaml": `name: claude-e2e
tests:
  - id: reads-prompt
    input: What is six times seven?
    assertions:
      - type: tool-trajectory
        mode: in_order
        args_match: superset # the call also has a description; 4.x compares arguments exactly by default
        expected: [{tool: Bash, args: {command: cat prompt.md}}]
      - type: contains
        value: Done.
      - type: token-usage
        max_total: 10000
      - type: cost
        budget: 0.05
`,
	})
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	res := agentv(t, dir, []string{"ANTHROPIC_API_KEY=" + key}, "eval", "claude.eval.yaml")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	r := res.byID()["reads-prompt"]
	if r == nil || r.Score != 1 {
		t.Fatalf("record %+v, want score 1", r)
	}
	ts := r.TraceSummary
	if ts == nil || ts.ToolCallsByName["Bash"] != 1 || ts.TokenUsage == nil || ts.TokenUsage.Input != 3500 || ts.TokenUsage.Output != 29 ||
		ts.CostUSD == nil || *ts.CostUSD != 0.01078 {
		t.Errorf("trace summary %+v, want one Bash call, 3500/29 tokens and the CLI's cost", ts)
	}
	if !strings.HasSuffix(r.CandidateAnswer, "Done. key=***") {
		t.Errorf("answer %q, want the key masked", r.CandidateAnswer)
	}
	out, err := os.ReadFile(filepath.Join(res.outDir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out)+res.stdout+res.stderr, key) {
		t.Errorf("the API key reached the results or the console")
	}
	argv, _ := os.ReadFile(filepath.Join(dir, "argv"))
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	// AgentV 4.42.4's flags and prompt document (see TestClaudeTargetAsAgentV442).
	if string(argv) != "-p\n--output-format\nstream-json\n--include-partial-messages\n--verbose\n--model\nclaude-sonnet-4-5\n" ||
		string(stdin) != "[[ ## user_query ## ]]\n\nWhat is six times seven?" {
		t.Errorf("argv %q, stdin %q", argv, stdin)
	}
}
