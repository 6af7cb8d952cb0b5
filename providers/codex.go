package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentv/action/targets"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// codexBaseArgs is the documented codex invocation; configured args go before the final "-" (prompt on stdin).
var codexBaseArgs = []string{"--ask-for-approval", "never", "exec", "--json", "--color", "never", "--skip-git-repo-check"}

// codexDefaultSystem heads the prompt document unless `system_prompt` replaces it.
const codexDefaultSystem = "You are a coding agent under evaluation. Complete the task in the query below. " +
	"If you change any files, end your final answer with the changes as a unified diff."

// codexExcerpt is how much of stdout and stderr an error message carries.
const codexExcerpt = 1500

func init() { register(targets.KindCodex, newCodexProvider) }

// codexProvider runs the Codex CLI once per request in a fresh temporary workspace.
type codexProvider struct {
	t         *targets.Target
	exe       string
	args      []string
	cwd       string // "" : the temporary workspace
	timeout   time.Duration
	logDir    string // "" : logs stay in the workspace, kept only on failure
	logFormat string // json | summary
	system    string
	env       []string
	logf      func(string, ...any)
}

func newCodexProvider(t *targets.Target, opts Options) (Provider, error) {
	p := &codexProvider{t: t, exe: "codex", system: codexDefaultSystem, logFormat: "json", logf: opts.Logf}
	if v, ok, err := t.String("executable", "command", "binary"); err != nil {
		return nil, err
	} else if ok && strings.TrimSpace(v) != "" {
		p.exe = codexResolvePath(t, strings.TrimSpace(v), true)
	}
	args, _, err := t.Strings("args", "arguments")
	if err != nil {
		return nil, err
	}
	p.args = args
	if v, ok, err := t.String("cwd"); err != nil {
		return nil, err
	} else if ok && strings.TrimSpace(v) != "" {
		p.cwd = codexResolvePath(t, strings.TrimSpace(v), false)
		if st, serr := os.Stat(p.cwd); serr != nil || !st.IsDir() {
			return nil, t.Error("cwd", "directory %q does not exist", p.cwd)
		}
	}
	if p.timeout, err = t.TimeoutSeconds("timeout_seconds", opts.Timeout); err != nil {
		return nil, err
	}
	if v, ok, err := t.String("log_dir", "log_directory", "logs_dir", "stream_log_dir"); err != nil {
		return nil, err
	} else if ok && strings.TrimSpace(v) != "" {
		p.logDir = codexResolvePath(t, strings.TrimSpace(v), false)
	}
	format, ok, err := t.String("log_format")
	if err != nil {
		return nil, err
	}
	if !ok && t.Env != nil {
		format, _ = t.Env("AGENTV_CODEX_LOG_FORMAT")
	}
	switch f := strings.ToLower(strings.TrimSpace(format)); f {
	case "", "json":
	case "summary":
		p.logFormat = f
	default:
		return nil, t.Error("log_format", "want json or summary, got %q", format)
	}
	if v, ok, err := t.String("system_prompt"); err != nil {
		return nil, err
	} else if ok && strings.TrimSpace(v) != "" {
		p.system = strings.TrimSpace(v)
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	// Child processes lose the GitHub token unless this target references it: an agent under test
	// must not act on the repository with the workflow's token.
	p.env = proc.ChildEnv(env, nil, t.ReferencedVars()...)
	return p, nil
}

// codexResolvePath makes a relative path absolute against the eval file's directory (else the
// targets file's). A bare command name (no separator) is left for PATH lookup when command is set.
func codexResolvePath(t *targets.Target, p string, command bool) string {
	if filepath.IsAbs(p) || (command && !strings.ContainsRune(p, filepath.Separator) && !strings.ContainsRune(p, '/')) {
		return p
	}
	base := t.EvalDir
	if base == "" {
		base = t.Dir
	}
	if base == "" {
		return p
	}
	return filepath.Join(base, p)
}

func (p *codexProvider) Target() *targets.Target { return p.t }

// HealthCheck makes sure the executable can be found before the first case runs.
func (p *codexProvider) HealthCheck(context.Context) error {
	_, err := p.lookPath()
	return err
}

func (p *codexProvider) lookPath() (string, error) {
	path, err := exec.LookPath(p.exe)
	if err != nil {
		return "", &CodexError{Target: p.t.Name, Msg: fmt.Sprintf("executable %q not found (install the Codex CLI with "+
			"`npm install -g @openai/codex`, or set `executable` in targets.yaml): %v", p.exe, err)}
	}
	return path, nil
}

// CodexError is a failed codex run: it carries what the agent printed and where the logs are.
type CodexError struct {
	Target   string
	Msg      string
	ExitCode int // -1 when codex did not exit normally (timeout, signal), 0 when it exited cleanly
	Stdout   string
	Stderr   string
	Logs     []string
	err      error
}

func (e *CodexError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "codex target %q: %s", e.Target, e.Msg)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "; stderr: %q", s)
	}
	if s := strings.TrimSpace(e.Stdout); s != "" {
		fmt.Fprintf(&b, "; stdout: %q", s)
	}
	if len(e.Logs) > 0 {
		fmt.Fprintf(&b, "; logs: %s", strings.Join(e.Logs, ", "))
	}
	return b.String()
}

// Unwrap exposes the subprocess error: errors.Is(err, proc.ErrTimeout) holds for a timeout.
func (e *CodexError) Unwrap() error { return e.err }

func (p *codexProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	exe, err := p.lookPath()
	if err != nil {
		return nil, err
	}
	ws, err := os.MkdirTemp("", "agentv-codex-")
	if err != nil {
		return nil, fmt.Errorf("codex target %q: could not create a workspace: %w", p.t.Name, err)
	}
	keepWS := false
	defer func() {
		if !keepWS {
			_ = os.RemoveAll(ws)
		}
	}()
	doc := codexPromptDocument(p.system, req)
	if err := os.WriteFile(filepath.Join(ws, "prompt.md"), []byte(doc), 0o600); err != nil {
		return nil, fmt.Errorf("codex target %q: could not write prompt.md: %w", p.t.Name, err)
	}
	dir := p.cwd
	if dir == "" {
		dir = ws
	}
	argv := append(append(append([]string{exe}, codexBaseArgs...), p.args...), "-")
	start := time.Now()
	res, runErr := proc.Run(ctx, proc.Cmd{Argv: argv, Dir: dir, Env: p.env, Stdin: []byte(doc), Timeout: p.timeout})
	ms := float64(time.Since(start).Microseconds()) / 1000
	var stdout, stderr []byte
	if res != nil {
		stdout, stderr = p.t.Redactor.Bytes(res.Stdout), p.t.Redactor.Bytes(res.Stderr)
	}
	stream := codexParseStream(stdout)
	logDir := p.logDir
	if logDir == "" {
		logDir = ws
	}
	logs, logErr := p.writeLogs(logDir, req, stdout, stderr, stream)

	fail := func(msg string, cause error, exit int) error {
		if p.logDir == "" && len(logs) > 0 {
			keepWS = true // the logs in it are the evidence
		}
		if logErr != nil {
			msg += fmt.Sprintf(" (could not write logs: %v)", logErr)
		}
		return &CodexError{Target: p.t.Name, Msg: p.t.Redactor.String(msg), ExitCode: exit, err: cause,
			Stdout: proc.Excerpt(string(stdout), codexExcerpt), Stderr: codexTail(string(stderr), codexExcerpt), Logs: logs}
	}
	if runErr != nil {
		var pe *proc.Error
		switch {
		case errors.As(runErr, &pe) && pe.TimedOut:
			return nil, fail(fmt.Sprintf("codex timed out after %s", pe.Timeout), runErr, -1)
		case ctx.Err() != nil:
			return nil, fail("codex was stopped: "+ctx.Err().Error(), ctx.Err(), -1)
		case errors.As(runErr, &pe) && pe.ExitCode >= 0:
			msg := fmt.Sprintf("codex exited with code %d", pe.ExitCode)
			if stream.Failure != "" {
				msg += ": " + stream.Failure
			}
			return nil, fail(msg, runErr, pe.ExitCode)
		default:
			return nil, fail("could not run codex: "+runErr.Error(), runErr, -1)
		}
	}
	if stream.Final == "" {
		msg := "codex printed no final assistant message"
		if stream.Failure != "" {
			msg += ": " + stream.Failure
		} else if stream.Events == 0 {
			msg += " (no JSON events on stdout: is this the Codex CLI, and does it support `exec --json`?)"
		}
		return nil, fail(msg, nil, 0)
	}
	if p.logf != nil && p.logDir != "" {
		p.logf("codex target %q: case %s: logs in %s", p.t.Name, req.EvalID, strings.Join(logs, ", "))
	}
	msg := suite.Message{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: stream.Final}}
	if calls := codexToolCalls(stream.Commands); calls != nil {
		msg.ToolCalls = calls
	}
	resp := &Response{Text: stream.Final, OutputMessages: []suite.Message{msg}, Usage: stream.Usage, DurationMS: &ms}
	if p.t.Price != nil && stream.Usage != nil {
		c := usageCost(p.t.Price, stream.Usage)
		resp.CostUSD = &c
	}
	return resp, nil
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
	raw, err := json.Marshal(calls)
	if err != nil {
		return nil
	}
	return raw
}

var codexUnsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeLogs writes codex's stdout (the JSONL stream) and stderr, already redacted, and a readable
// summary when log_format is summary. It returns the paths written.
func (p *codexProvider) writeLogs(dir string, req *Request, stdout, stderr []byte, s *codexStream) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	id := codexUnsafeName.ReplaceAllString(req.EvalID, "_")
	if id == "" {
		id = "case"
	}
	base := filepath.Join(dir, fmt.Sprintf("codex-%s-attempt%d-%s", id, req.Attempt, time.Now().UTC().Format("20060102T150405.000000000")))
	files := []struct {
		path string
		data []byte
	}{{base + ".jsonl", stdout}, {base + ".stderr.log", stderr}}
	if p.logFormat == "summary" {
		files = append(files, struct {
			path string
			data []byte
		}{base + ".summary.log", []byte(codexSummary(s))})
	}
	var paths []string
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return paths, err
		}
		paths = append(paths, f.path)
	}
	return paths, nil
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

func codexTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
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
		var out []string
		for _, p := range paths {
			if !filepath.IsAbs(p) && req.Dir != "" {
				p = filepath.Join(req.Dir, p)
			}
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, fmt.Sprintf("- [%s](%s)", filepath.Base(p), codexFileURL(p)))
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
