package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/agentv/action/targets"
)

// codexBaseArgs is the documented codex invocation; configured args go before the final "-" (prompt on stdin).
var codexBaseArgs = []string{"--ask-for-approval", "never", "exec", "--json", "--color", "never", "--skip-git-repo-check"}

// codexDefaultSystem heads the prompt document unless `system_prompt` replaces it.
const codexDefaultSystem = "You are a coding agent under evaluation. Complete the task in the query below. " +
	"If you change any files, end your final answer with the changes as a unified diff."

func init() { register(targets.KindCodex, newCodexProvider) }

// codexSpec is the Codex CLI as an agent CLI.
var codexSpec = agentSpec{name: "codex", exe: "codex", install: "the Codex CLI with `npm install -g @openai/codex`",
	system: codexDefaultSystem, logFormatEnv: []string{"AGENTV_CODEX_LOG_FORMAT"},
	secretEnv: []string{"OPENAI_API_KEY", "CODEX_API_KEY"}}

// codexProvider runs the Codex CLI once per request in a fresh temporary workspace.
type codexProvider struct{ *agentCLI }

func newCodexProvider(t *targets.Target, opts Options) (Provider, error) {
	cli, err := newAgentCLI(t, opts, codexSpec)
	if err != nil {
		return nil, err
	}
	return &codexProvider{cli}, nil
}

func (p *codexProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	exe, err := p.lookPath()
	if err != nil {
		return nil, err
	}
	doc := codexPromptDocument(p.system, req)
	if req.Agent.PromptAs442 {
		// AgentV 4.42.4 sends codex its prompt document after the target's system_prompt
		// alone, with no default instructions (providers/codex.ts, lines 100–103).
		doc = preReadDocument(req)
		if p.userSystem != "" {
			doc = p.userSystem + "\n\n" + doc
		}
	}
	argv := append(append(append([]string{exe}, codexBaseArgs...), p.args...), "-")
	var stream *codexStream
	run, err := p.run(ctx, req, argv, doc, func(stdout []byte) agentReport {
		stream = codexParseStream(stdout)
		return agentReport{Failure: stream.Failure, Summary: func() string { return codexSummary(stream) }}
	}, nil)
	if err != nil {
		return nil, err
	}
	defer run.Close()
	if stream.Final == "" {
		msg := "codex printed no final assistant message"
		if stream.Failure != "" {
			msg += ": " + stream.Failure
		} else if stream.Events == 0 {
			msg += " (no JSON events on stdout: is this the Codex CLI, and does it support `exec --json`?)"
		}
		return nil, run.Fail(msg, nil, 0)
	}
	msgs := textAnswer(stream.Final)
	msgs[0].ToolCalls = codexToolCalls(stream.Commands)
	return run.answer(stream.Final, msgs, stream.Usage, nil, nil), nil
}

// codexToolCalls turns the commands the agent ran into the answer's tool_calls.
func codexToolCalls(cmds []codexCommand) json.RawMessage {
	if len(cmds) == 0 {
		return nil
	}
	type call struct {
		Tool   string         `json:"tool"`
		Input  map[string]any `json:"input"`
		Output string         `json:"output,omitempty"`
	}
	calls := make([]call, 0, len(cmds))
	for _, c := range cmds {
		in := map[string]any{"command": c.Command}
		if c.ExitCode != nil {
			in["exit_code"] = *c.ExitCode
		}
		calls = append(calls, call{Tool: "command_execution", Input: in, Output: c.Output})
	}
	raw, _ := json.Marshal(calls) // strings and ints only: it cannot fail
	return raw
}

// codexSummary is a short human-readable account of a run.
func codexSummary(s *codexStream) string {
	var b strings.Builder
	fmt.Fprintf(&b, "events: %d (non-JSON lines skipped: %d)\n", s.Events, s.Skipped)
	for _, c := range s.Commands {
		exit := "?"
		if c.ExitCode != nil {
			exit = fmt.Sprint(*c.ExitCode)
		}
		fmt.Fprintf(&b, "command (exit %s): %s\n", exit, c.Command)
	}
	if s.Usage != nil {
		fmt.Fprintf(&b, "tokens: %d in, %d out\n", s.Usage.Input, s.Usage.Output)
	}
	if s.Failure != "" {
		fmt.Fprintf(&b, "failure: %s\n", s.Failure)
	}
	fmt.Fprintf(&b, "final message:\n%s\n", s.Final)
	return b.String()
}

// codexPromptDocument renders the agent prompt document shared by codex and vscode: a header, the
// mandatory pre-read block linking guideline and attachment files as file:// URLs, then the query.
func codexPromptDocument(header string, req *Request) string {
	guides, inputs := req.GuidelinePaths, req.InputFiles
	if len(guides) == 0 && len(inputs) == 0 {
		inputs = req.Files
	}
	seen := map[string]bool{}
	links := func(paths []string) []string {
		out := agentFiles(req, seen, paths)
		for i, p := range out {
			out[i] = fmt.Sprintf("- [%s](%s)", filepath.Base(p), codexFileURL(p))
		}
		return out
	}
	g, in := links(guides), links(inputs)
	var b strings.Builder
	if h := strings.TrimSpace(header); h != "" {
		b.WriteString(h)
		b.WriteString("\n\n")
	}
	if len(g)+len(in) > 0 {
		b.WriteString("[[ ## mandatory_pre_read ## ]]\n\n")
		b.WriteString("Before you answer, open and read every file listed below, completely. They are part of the task: " +
			"guideline files set rules your answer must follow; attachments are the material the query is about.\n")
		if len(g) > 0 {
			b.WriteString("\nGuideline files:\n" + strings.Join(g, "\n") + "\n")
		}
		if len(in) > 0 {
			b.WriteString("\nAttachments:\n" + strings.Join(in, "\n") + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("[[ ## user_query ## ]]\n\n")
	b.WriteString(strings.TrimSpace(req.Question))
	b.WriteString("\n")
	return b.String()
}

// codexFileURL is the file:// URL of an absolute path (spaces and the like percent-encoded).
func codexFileURL(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // Windows drive paths: file:///C:/...
	}
	return u.String()
}

// agentFiles makes paths absolute against req.Dir, dropping blanks and those in seen.
func agentFiles(req *Request, seen map[string]bool, paths []string) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) && req.Dir != "" {
			p = filepath.Join(req.Dir, p)
		}
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// resolvePath makes a relative path absolute against the target's base directory. A bare
// command name (no separator) is left for PATH lookup when command is set.
func resolvePath(t *targets.Target, p string, command bool) string {
	if filepath.IsAbs(p) || (command && !strings.ContainsRune(p, filepath.Separator) && !strings.ContainsRune(p, '/')) {
		return p
	}
	if base := t.Dir; base != "" {
		return filepath.Join(base, p)
	}
	return p
}
