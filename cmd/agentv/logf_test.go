package main

import (
	"strings"
	"testing"
	"unicode"

	"github.com/agentv/action/action"
	"github.com/agentv/action/action/actiontest"
	"github.com/agentv/action/config"
	"github.com/agentv/action/internal/redact"
)

func TestSplitFirstLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"one":                   {"one", ""},
		"a\nb\nc":               {"a", "b\nc"},
		"a\r\nb":                {"a", "b"},
		"a\rb":                  {"a", "b"},
		"a\u2028b":              {"a", "b"},
		"a\n\nb":                {"a", "\nb"},
		"cmd: x\n::add-mask::e": {"cmd: x", "::add-mask::e"},
	} {
		if h, r := splitFirstLine(in); h != want[0] || r != want[1] {
			t.Errorf("splitFirstLine(%q) = %q, %q; want %q, %q", in, h, r, want[0], want[1])
		}
	}
}

// The verbose log carries model text: locally every line is flattened behind the prefix;
// under Actions the lines after the first are fenced by ::stop-commands::.
func TestVerboseLogIsSafe(t *testing.T) {
	t.Parallel()
	msg := "cli target %q: running: %s"
	args := []any{"x\n::add-mask::t", "agent --prompt 'line\n::add-mask::e\r::error::f\u2028##[add-mask]g' sk-secret-99"}
	for _, underActions := range []bool{false, true} {
		var stdout, stderr strings.Builder
		c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
		red := &redact.Redactor{}
		red.Add("sk-secret-99")
		var cmds *action.Commands
		if underActions {
			cmds = action.NewCommands(&stdout, red)
		}
		e := c.engine(EvalConfig{Settings: config.Settings{Verbose: true}}, red, cmds)
		e.Logf(msg, args...)
		e.Done()
		out := stdout.String() + stderr.String()
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "sk-secret-99") && line != "::add-mask::sk-secret-99" {
				t.Errorf("secret in the verbose log: %q", line)
			}
		}
		var names []string
		for _, cmd := range actiontest.WorkflowCommands(out) {
			names = append(names, cmd.Name)
		}
		if !underActions {
			if len(names) != 0 {
				t.Errorf("local verbose log has workflow commands %v:\n%s", names, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if !strings.HasPrefix(line, "agentv: ") || strings.ContainsFunc(line, unicode.IsControl) {
					t.Errorf("local verbose line %q", line)
				}
			}
			continue
		}
		// add-mask of the secret, then one fenced block and its resume token
		if len(names) != 3 || names[0] != "add-mask" || names[1] != "stop-commands" || !strings.Contains(out, "\n::add-mask::e\n") {
			t.Errorf("Actions verbose log: commands %v:\n%s", names, out)
		}
	}
}
