package providers

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/targets"
)

// vscodeDefaultSystem heads the prompt document unless `system_prompt` replaces it.
const vscodeDefaultSystem = "You are an AI coding agent in VS Code, under evaluation. Complete the task in the query " +
	"below using the workspace and its files as needed."

// vscodeResponseFile is where the agent is asked to write its final answer.
const vscodeResponseFile = "response.md"

// vscodeDefaultWait bounds the wait for the answer when neither timeout_seconds nor --timeout is set.
const vscodeDefaultWait = 10 * time.Minute

func init() {
	register(targets.KindVSCode, newVSCodeProvider)
	register(targets.KindVSCodeInsiders, newVSCodeProvider)
}

// vscodeProvider writes the prompt document into a fresh workspace, opens it with `code`, starts
// an agent-mode chat on it (`code chat`) and waits for the agent's answer in response.md; with
// dry_run it only builds the document. VS Code needs a desktop session and a signed-in chat
// extension: without `code`, or in a CI job, it fails before any case runs.
type vscodeProvider struct {
	t         *targets.Target
	command   string
	dryRun    bool
	wait      bool
	template  string // workspace_template: a .code-workspace file copied into the workspace
	root      string // subagent_root: parent of the per-case workspaces ("" : temp dir)
	system    string
	timeout   time.Duration
	env       []string
	ci        string // why this environment cannot drive VS Code ("" : it may)
	logf      func(string, ...any)
	pollEvery time.Duration
}

func newVSCodeProvider(t *targets.Target, opts Options) (Provider, error) {
	p := &vscodeProvider{t: t, command: "code", wait: true, system: vscodeDefaultSystem, logf: opts.Logf,
		pollEvery: 500 * time.Millisecond}
	if t.Kind == targets.KindVSCodeInsiders {
		p.command = "code-insiders"
	}
	r := &targets.Reader{T: t}
	if v := r.Trimmed("vscode_cmd", "command", "executable"); v != "" {
		p.command = resolvePath(t, v, true)
	}
	p.dryRun, _ = r.Bool("dry_run")
	if v, ok := r.Bool("wait"); ok {
		p.wait = v
	}
	if v := r.Trimmed("workspace_template"); v != "" {
		p.template = resolvePath(t, v, false)
		if st, err := os.Stat(p.template); err != nil || st.IsDir() {
			r.Fail("workspace_template", "want an existing .code-workspace file, got %q", p.template)
		}
	}
	if v := r.Trimmed("subagent_root"); v != "" {
		p.root = resolvePath(t, v, false)
	}
	if v := r.Trimmed("system_prompt"); v != "" {
		p.system = v
	}
	p.timeout = cmp.Or(r.Seconds("timeout_seconds", opts.Timeout), vscodeDefaultWait)
	if r.Err != nil {
		return nil, r.Err
	}
	env := opts.environ()
	p.env = proc.ChildEnv(env, nil, t.ReferencedVars()...)
	p.ci = vscodeCIReason(env)
	return p, nil
}

// vscodeCIReason says why env is a CI job, "" when it is not.
func vscodeCIReason(env []string) string {
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		v := strings.ToLower(strings.TrimSpace(val))
		if (name == "GITHUB_ACTIONS" || name == "CI") && v != "" && v != "false" && v != "0" {
			return fmt.Sprintf("this is a CI job (%s=%s): it has no desktop session and no signed-in VS Code", name, val)
		}
	}
	return ""
}

func (p *vscodeProvider) Target() *targets.Target { return p.t }

// HealthCheck fails before the first case where VS Code cannot be driven (dry runs always pass).
func (p *vscodeProvider) HealthCheck(context.Context) error {
	if p.dryRun {
		return nil
	}
	_, err := p.lookPath()
	return err
}

func (p *vscodeProvider) lookPath() (string, error) {
	if p.ci != "" {
		return "", p.cannot(p.ci)
	}
	path, err := exec.LookPath(p.command)
	if err != nil {
		return "", p.cannot(fmt.Sprintf("the %q command was not found (install VS Code and its shell command, or set `command`)", p.command))
	}
	return path, nil
}

func (p *vscodeProvider) cannot(why string) error {
	return fmt.Errorf("%s target %q: VS Code cannot be driven here: %s; set `dry_run: true` to check the prompt "+
		"document without running the agent, or run this target on a machine with VS Code", p.t.Kind, p.t.Name, why)
}

func (p *vscodeProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	doc := codexPromptDocument(p.system, req)
	if p.dryRun {
		// No answer: the document and the files it links are the result (Response.Metadata).
		files := append(append([]string{}, req.GuidelinePaths...), req.InputFiles...)
		if p.logf != nil {
			p.logf("%s target %q: dry run, case %s: prompt document:\n%s", p.t.Kind, p.t.Name, req.EvalID, doc)
		}
		return &Response{Metadata: map[string]any{"dry_run": true, "prompt_document": doc, "files": files, "command": p.command}}, nil
	}
	exe, err := p.lookPath()
	if err != nil {
		return nil, err
	}
	ws, err := p.workspace(req)
	if err != nil {
		return nil, fmt.Errorf("%s target %q: could not prepare the workspace: %w", p.t.Kind, p.t.Name, err)
	}
	respPath := filepath.Join(ws, vscodeResponseFile)
	promptPath := filepath.Join(ws, "prompt.md")
	full := doc + "\n[[ ## response ## ]]\n\nWhen you are done, write your complete final answer (only the answer) to this file: " +
		codexFileURL(respPath) + "\n"
	if err := os.WriteFile(promptPath, []byte(full), 0o600); err != nil {
		return nil, fmt.Errorf("%s target %q: could not write prompt.md: %w", p.t.Kind, p.t.Name, err)
	}
	open := ws
	if p.template != "" {
		raw, err := safefile.ReadFile(p.template, safefile.LimitContent)
		if err != nil {
			return nil, fmt.Errorf("%s target %q: could not read workspace_template: %w", p.t.Kind, p.t.Name, err)
		}
		open = filepath.Join(ws, "agentv.code-workspace")
		if err := os.WriteFile(open, raw, 0o600); err != nil {
			return nil, fmt.Errorf("%s target %q: could not write the workspace file: %w", p.t.Kind, p.t.Name, err)
		}
	}
	start := time.Now()
	steps := [][]string{
		{exe, "--new-window", open},
		{exe, "chat", "--mode", "agent", "--reuse-window", "--add-file", promptPath,
			"Read the attached prompt.md completely and follow it exactly, including where to write your answer."},
	}
	for _, argv := range steps {
		if _, err := proc.Run(ctx, proc.Cmd{Argv: argv, Dir: ws, Env: p.env, Timeout: time.Minute}); err != nil {
			return nil, fmt.Errorf("%s target %q: could not start the chat (workspace %s): %s", p.t.Kind, p.t.Name, ws,
				p.t.Redactor.String(err.Error()))
		}
	}
	if !p.wait {
		return &Response{Metadata: map[string]any{"workspace": ws, "response_file": respPath, "waited": false}}, nil
	}
	text, err := p.awaitAnswer(ctx, respPath)
	if err != nil {
		return nil, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	text = p.t.Redactor.String(text)
	return &Response{Text: text, DurationMS: &ms, Metadata: map[string]any{"workspace": ws, "response_file": respPath},
		OutputMessages: textAnswer(text)}, nil
}

// workspace creates the per-case folder (under subagent_root when set).
func (p *vscodeProvider) workspace(req *Request) (string, error) {
	parent := p.root
	if parent != "" {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return "", err
		}
	}
	id := unsafeFileChars.ReplaceAllString(req.EvalID, "_")
	return os.MkdirTemp(parent, fmt.Sprintf("agentv-vscode-%s-", id))
}

// vscodeTimeoutError is the wait for the agent's answer running out; it matches proc.ErrTimeout so
// the runner treats it as a timed-out invocation.
type vscodeTimeoutError struct{ msg string }

func (e *vscodeTimeoutError) Error() string        { return e.msg }
func (e *vscodeTimeoutError) Is(target error) bool { return target == proc.ErrTimeout }

// awaitAnswer polls for the response file until it holds a stable, non-empty answer.
func (p *vscodeProvider) awaitAnswer(ctx context.Context, path string) (string, error) {
	deadline := time.NewTimer(p.timeout)
	defer deadline.Stop()
	tick := time.NewTicker(p.pollEvery)
	defer tick.Stop()
	var last []byte
	for {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%s target %q: stopped waiting for %s: %w", p.t.Kind, p.t.Name, path, ctx.Err())
		case <-deadline.C:
			return "", &vscodeTimeoutError{msg: fmt.Sprintf("%s target %q: no answer in %s after %s (the agent was asked to "+
				"write it there; check the VS Code window)", p.t.Kind, p.t.Name, path, p.timeout)}
		case <-tick.C:
		}
		// The agent writes this file: a FIFO or device there is an error, not a wait.
		b, err := safefile.ReadFile(path, safefile.LimitContent)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s target %q: could not read the answer: %w", p.t.Kind, p.t.Name, err)
		}
		// Done when the file has content that did not change since the previous poll: the agent
		// may write it in several steps.
		if len(bytes.TrimSpace(b)) > 0 && bytes.Equal(b, last) {
			return strings.TrimSpace(string(b)), nil
		}
		last = b
	}
}
