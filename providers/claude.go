package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// claudeBaseArgs is Claude Code's print mode with its JSON event stream (--verbose is required
// with stream-json); the prompt is read from stdin.
var claudeBaseArgs = []string{"-p", "--output-format", "stream-json", "--verbose"}

// claudeDefaultSystem heads the prompt document of 2.5 files' cases unless `system_prompt`
// replaces it: the same request as codex's. 4.x files' cases get 4.42.4's document
// (claude_v4.go).
const claudeDefaultSystem = codexDefaultSystem

// claudeSpec is Claude Code as an agent CLI.
var claudeSpec = agentSpec{name: "claude", exe: "claude",
	install: "Claude Code with `npm install -g @anthropic-ai/claude-code`", system: claudeDefaultSystem,
	logFormatEnv: []string{"AGENTV_CLAUDE_CODE_LOG_FORMAT", "AGENTV_CLAUDE_LOG_FORMAT"},
	secretEnv:    []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"},
	// Set when agentv itself runs inside a Claude Code session; the agent under test is a session
	// of its own.
	dropEnv: []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"},
	// The init event that starts the stream is long; the result event at its end says what failed.
	stdoutTail: true}

func init() { register(targets.KindClaude, newClaudeProvider) }

// claudeProvider runs Claude Code (`claude -p`) once per request in a fresh temporary workspace.
type claudeProvider struct {
	*agentCLI
	// flags are the argv after the base args: permissions, model, limits, then `args`.
	flags []string
	// flagsV4 are flags for the cases of 4.x eval files: the same, with system_prompt given
	// to Claude Code on its own (--system-prompt) instead of heading the prompt document.
	flagsV4 []string
	v4log   claudeV4Log
}

func newClaudeProvider(t *targets.Target, opts Options) (Provider, error) {
	cli, err := newAgentCLI(t, opts, claudeSpec)
	if err != nil {
		return nil, err
	}
	p := &claudeProvider{agentCLI: cli}
	// The agent works unattended in a throwaway workspace: it may use its tools without asking,
	// unless the target says otherwise.
	r := &targets.Reader{T: t}
	if bypass, set := r.Bool("bypass_permissions"); !set || bypass {
		p.flags = append(p.flags, "--dangerously-skip-permissions")
	}
	if v := r.Trimmed("model"); v != "" {
		p.flags = append(p.flags, "--model", v)
	}
	if n, ok := r.Int("max_turns"); ok && n < 1 {
		r.Fail("max_turns", "want a whole number of at least 1, got %d", n)
	} else if ok {
		p.flags = append(p.flags, "--max-turns", strconv.Itoa(n))
	}
	if f, ok := r.Float("max_budget_usd"); ok && f <= 0 {
		r.Fail("max_budget_usd", "want a positive amount in USD, got %v", f)
	} else if ok {
		p.flags = append(p.flags, "--max-budget-usd", strconv.FormatFloat(f, 'f', -1, 64))
	}
	if r.Err != nil {
		return nil, r.Err
	}
	p.flagsV4 = slices.Clone(p.flags)
	if cli.userSystem != "" {
		p.flagsV4 = append(p.flagsV4, "--system-prompt", cli.userSystem)
	}
	p.flags = append(p.flags, cli.args...)
	p.flagsV4 = append(p.flagsV4, cli.args...)
	p.v4log = newClaudeV4Log(cli, opts.environ())
	return p, nil
}

func (p *claudeProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	exe, err := p.lookPath()
	if err != nil {
		return nil, err
	}
	doc := codexPromptDocument(p.system, req)
	argv := append(append([]string{exe}, claudeBaseArgs...), p.flags...)
	var live agentLog
	if req.Agent.PromptAs442 {
		doc = preReadDocument(req)
		argv = append(append([]string{exe}, claudeV4BaseArgs...), p.flagsV4...)
		live = p.v4log.open(p.t.Name, req, p.t.Redactor, p.logf)
	}
	var stream *claudeStream
	run, err := p.run(ctx, req, argv, doc, func(stdout []byte) agentReport {
		stream = claudeParseStream(stdout)
		return agentReport{Failure: stream.Failure, Summary: func() string { return claudeSummary(stream) }}
	}, live)
	var ae *AgentError
	if errors.As(err, &ae) && strings.Contains(ae.Stderr, "--dangerously-skip-permissions") {
		// Claude Code refuses to skip permission prompts when run as root.
		ae.Msg += " (Claude Code refused --dangerously-skip-permissions: run agentv as a user other than root, " +
			"or set `bypass_permissions: false` and allow tools with `args`)"
	}
	if err != nil {
		return nil, err
	}
	defer run.Close()
	switch {
	case stream.IsError:
		return nil, run.Fail("claude reported an error: "+stream.Failure, nil, 0)
	case stream.Final == "":
		msg := "claude printed no answer"
		switch {
		case stream.Failure != "":
			msg += ": " + stream.Failure
		case stream.Events == 0:
			msg += " (no JSON events on stdout: is this Claude Code, and does it support `-p --output-format stream-json`?)"
		case run.Truncated:
			msg += fmt.Sprintf(" (its output passed %d MiB and was cut before the result)", agentMaxOutput>>20)
		}
		return nil, run.Fail(msg, nil, 0)
	}
	return run.answer(stream.Final, claudeOutputMessages(stream), stream.Usage, stream.CostUSD, stream.DurationMS), nil
}

// claudeOutputMessages turns the assistant turns into the answer's messages: each turn's text and
// tool calls (tool, input, id, and output when the stream has it). The last text is the answer;
// when the result event says otherwise, the answer is added as a message of its own.
func claudeOutputMessages(s *claudeStream) []suite.Message {
	var out []suite.Message
	last := -1
	for _, m := range s.Messages {
		msg := suite.Message{Role: suite.RoleAssistant}
		if m.Text != "" {
			msg.Content = suite.Content{Kind: suite.ContentText, Text: m.Text}
		}
		if len(m.Calls) > 0 {
			raw, err := json.Marshal(m.Calls)
			if err == nil {
				msg.ToolCalls = raw
			}
		}
		if msg.Content.Kind == suite.ContentNone && msg.ToolCalls == nil {
			continue
		}
		if m.Text != "" {
			last = len(out)
		}
		out = append(out, msg)
	}
	if last < 0 || out[last].Content.Text != s.Final {
		out = append(out, textAnswer(s.Final)...)
	}
	return out
}

// claudeSummary is a short human-readable account of a run.
func claudeSummary(s *claudeStream) string {
	var b strings.Builder
	fmt.Fprintf(&b, "events: %d (non-JSON lines skipped: %d)\n", s.Events, s.Skipped)
	if s.Model != "" {
		fmt.Fprintf(&b, "model: %s\n", s.Model)
	}
	for _, m := range s.Messages {
		for _, c := range m.Calls {
			status := "no result"
			if c.Output != nil {
				status = "ok"
				if c.IsError {
					status = "error"
				}
			}
			fmt.Fprintf(&b, "tool %s (%s): %s\n", c.Tool, status, proc.Excerpt(string(c.Input), 300))
		}
	}
	if s.Usage != nil {
		fmt.Fprintf(&b, "tokens: %d in, %d out\n", s.Usage.Input, s.Usage.Output)
	}
	if s.CostUSD != nil {
		fmt.Fprintf(&b, "cost: $%.4f\n", *s.CostUSD)
	}
	if s.DurationMS != nil {
		fmt.Fprintf(&b, "duration: %.0f ms, turns: %d\n", *s.DurationMS, s.NumTurns)
	}
	if s.Failure != "" {
		fmt.Fprintf(&b, "failure: %s\n", s.Failure)
	}
	fmt.Fprintf(&b, "final message:\n%s\n", s.Final)
	return b.String()
}
