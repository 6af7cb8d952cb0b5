package providers

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/safefile"
	"github.com/agentv/action/targets"
)

func init() { register(targets.KindCLI, newCLI) }

// cliProvider runs a command template per request through `/bin/sh -c` (internal/proc), within
// the smaller of `timeout_seconds` and Options.Timeout; a timed-out command's error matches both
// context.DeadlineExceeded and proc.ErrTimeout, so the runner retries it.
type cliProvider struct {
	target *targets.Target
	cfg    *targets.CLI
	opts   Options
	env    []string

	healthMu sync.Mutex
	health   map[string]error // healthcheck results by eval file directory
}

// cliBatchProvider is a cliProvider whose target asked for provider_batching.
type cliBatchProvider struct{ *cliProvider }

func newCLI(t *targets.Target, opts Options) (Provider, error) {
	cfg, errs := targets.ParseCLI(t, true, nil)
	if len(errs) > 0 {
		// An unset variable goes first: on a fork PR it means "skipped", not "invalid".
		for _, err := range errs {
			var ue *targets.UnsetVarError
			if errors.As(err, &ue) {
				return nil, err
			}
		}
		return nil, errs[0]
	}
	p := &cliProvider{target: t, cfg: cfg, opts: opts, env: proc.ChildEnv(opts.environ(), nil, t.ReferencedVars()...),
		health: map[string]error{}}
	if t.ProviderBatching {
		return &cliBatchProvider{p}, nil
	}
	return p, nil
}

func (p *cliProvider) Target() *targets.Target { return p.target }

// Invoke renders the template for req, runs it and reads the answer from {OUTPUT_FILE}
// when the template uses it (the file is removed afterwards), else from stdout.
func (p *cliProvider) Invoke(ctx context.Context, req *Request) (*Response, error) {
	dir, v, done, err := p.prepare(req, req.EvalID, cliFileName(req.EvalID)+".json", req.Question)
	if err != nil {
		return nil, err
	}
	defer done()
	v.Prompt, v.Guidelines, v.Attempt, v.Files = req.Question, req.Guidelines, req.Attempt, req.Files
	cmdline := cliRender(p.cfg.Template, p.cfg.FilesFormat, v)
	out, elapsed, err := p.run(ctx, cmdline, dir, p.timeout(p.cfg.Timeout), v.OutputFile)
	if err != nil {
		return nil, err
	}
	resp, warns := cliParseOutput(out.data)
	p.warn(warns)
	if out.truncated {
		resp.Error = fmt.Sprintf("the answer was cut off at %d MiB", proc.DefaultMaxOutput>>20)
	}
	p.finish(resp, elapsed)
	return resp, nil
}

// prepare resolves the working directory of req (the suite's workspace wins over the target's
// cwd, as in AgentV 4.x; a batch's requests share theirs) and makes the template's files.
func (p *cliProvider) prepare(req *Request, evalID, outName, prompt string) (
	dir string, v cliValues, done func(), err error) {
	dir, err = p.workDir(req.Dir, p.cfg.Cwd)
	if req.Workspace != "" {
		dir, err = req.Workspace, nil
	}
	if err != nil {
		return "", v, nil, err
	}
	v, done, err = p.tempFiles(p.cfg.Template, evalID, outName, prompt)
	return dir, v, done, err
}

// tempFiles makes the files tmpl names: {OUTPUT_FILE} called outName, {PROMPT_FILE} holding
// prompt. done removes them.
func (p *cliProvider) tempFiles(tmpl, evalID, outName, prompt string) (v cliValues, done func(), err error) {
	outPath, doneOut, err := p.outputFile(tmpl, outName)
	if err != nil {
		return v, nil, err
	}
	promptPath, donePrompt, err := p.promptFile(tmpl, evalID, prompt)
	if err != nil {
		doneOut()
		return v, nil, err
	}
	done = func() {
		donePrompt()
		doneOut()
	}
	return cliValues{EvalID: evalID, PromptFile: promptPath, OutputFile: outPath}, done, nil
}

// cliOutput is what a command answered.
type cliOutput struct {
	data      []byte
	truncated bool
}

// run executes one rendered command and returns its answer: the output file's contents
// when outPath is set, else stdout.
func (p *cliProvider) run(ctx context.Context, cmdline, dir string, timeout time.Duration, outPath string) (*cliOutput, time.Duration, error) {
	if p.verbose() {
		p.logf("cli target %q: running in %s: %s", p.target.Name, dir, proc.Excerpt(cmdline, 2000))
	}
	start := time.Now()
	res, err := proc.Run(ctx, proc.Cmd{Argv: []string{"/bin/sh", "-c", cmdline}, Dir: dir, Env: p.env, Timeout: timeout})
	elapsed := time.Since(start)
	if err != nil {
		return nil, elapsed, p.runError("command", err, res)
	}
	if p.verbose() && len(res.Stderr) > 0 {
		p.logf("cli target %q: stderr: %s", p.target.Name, cliExcerpt(string(res.Stderr)))
	}
	if outPath == "" {
		// Answering on stdout is this tool's own addition (AgentV reads only {OUTPUT_FILE}):
		// the newline `echo` leaves there is no part of the answer.
		return &cliOutput{data: bytes.TrimSpace(res.Stdout), truncated: res.StdoutTruncated}, elapsed, nil
	}
	// The command controls what sits at outPath: a FIFO or device there must not block or
	// flood the run.
	f, err := safefile.Open(outPath)
	if err != nil {
		msg := fmt.Sprintf("the command exited 0 but did not write {OUTPUT_FILE} (%s)", outPath)
		if !errors.Is(err, fs.ErrNotExist) {
			msg = fmt.Sprintf("could not read {OUTPUT_FILE}: %v", err)
		}
		if s := strings.TrimSpace(string(res.Stderr)); s != "" {
			msg += "; stderr: " + cliExcerpt(s)
		}
		return nil, elapsed, fmt.Errorf("cli target %q: %s", p.target.Name, msg)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, proc.DefaultMaxOutput+1))
	if err != nil {
		return nil, elapsed, fmt.Errorf("cli target %q: could not read {OUTPUT_FILE} %s: %w", p.target.Name, outPath, err)
	}
	if len(data) > proc.DefaultMaxOutput {
		return &cliOutput{data: data[:proc.DefaultMaxOutput], truncated: true}, elapsed, nil
	}
	// The file is the answer as written; only CRLF line ends become LF, as AgentV reads it.
	return &cliOutput{data: bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))}, elapsed, nil
}

// cliRunError is a command that failed: it names the target, exit status and stderr, and
// wraps the *proc.Error. A timeout matches both context.DeadlineExceeded and proc.ErrTimeout.
type cliRunError struct {
	msg      string
	err      error
	timedOut bool
}

func (e *cliRunError) Error() string { return e.msg }
func (e *cliRunError) Unwrap() error { return e.err }

// Is makes a timeout look the same whichever clock stopped the command.
func (e *cliRunError) Is(target error) bool {
	return e.timedOut && (target == context.DeadlineExceeded || target == proc.ErrTimeout)
}

func (p *cliProvider) runError(what string, err error, res *proc.Result) error {
	var pe *proc.Error
	if !errors.As(err, &pe) {
		return fmt.Errorf("cli target %q: could not run %s: %w", p.target.Name, what, err)
	}
	e := &cliRunError{err: err}
	prefix := fmt.Sprintf("cli target %q: %s", p.target.Name, what)
	switch {
	case pe.TimedOut:
		e.timedOut = true
		e.msg = fmt.Sprintf("%s timed out after %s", prefix, pe.Timeout)
	case errors.Is(pe.Err, context.DeadlineExceeded):
		e.timedOut = true
		e.msg = prefix + " timed out (the invocation deadline passed)"
	case errors.Is(pe.Err, context.Canceled):
		e.msg = prefix + " was cancelled"
	case pe.ExitCode < 0:
		e.msg = fmt.Sprintf("%s could not run: %v", prefix, pe.Err)
	default:
		e.msg = fmt.Sprintf("%s exited with code %d", prefix, pe.ExitCode)
		switch {
		case strings.TrimSpace(pe.Stderr) != "":
			e.msg += ": " + strings.TrimSpace(pe.Stderr)
		case res != nil && len(strings.TrimSpace(string(res.Stdout))) > 0:
			e.msg += " (no stderr; stdout: " + cliExcerpt(string(res.Stdout)) + ")"
		default:
			e.msg += " and printed nothing on stderr"
		}
	}
	return e
}

// finish turns a plain-text answer into one assistant message, fills the duration (measured
// when the command did not report one) and the cost from the target's price when the command
// reported usage but no cost.
func (p *cliProvider) finish(resp *Response, elapsed time.Duration) {
	if len(resp.OutputMessages) == 0 {
		resp.OutputMessages = textAnswer(resp.Text)
	}
	if resp.DurationMS == nil {
		resp.DurationMS = new(float64(elapsed.Microseconds()) / 1000)
	}
	if resp.CostUSD == nil {
		resp.CostUSD = targetCost(p.target, resp.Usage)
	}
}

// workDir resolves a configured cwd against the eval file's directory (the request's Dir),
// else the targets file's directory.
func (p *cliProvider) workDir(reqDir, cwd string) (string, error) {
	base := cmp.Or(reqDir, p.target.Dir)
	dir := base
	if cwd != "" {
		dir = cwd
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, cwd)
		}
	}
	if dir == "" {
		return "", nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("cli target %q: cwd %s is not a directory (relative cwd resolves against the eval file's directory)", p.target.Name, dir)
	}
	return dir, nil
}

// timeout is the smaller of the target's own limit and the run's per-invocation timeout.
func (p *cliProvider) timeout(own time.Duration) time.Duration {
	switch {
	case own <= 0:
		return p.opts.Timeout
	case p.opts.Timeout <= 0:
		return own
	}
	return min(own, p.opts.Timeout)
}

// outputFile is the {OUTPUT_FILE} path for a command template, named name in a fresh
// temporary directory, and the function that removes it; "" when the template does not use it.
func (p *cliProvider) outputFile(tmpl, name string) (path string, done func(), err error) {
	if !strings.Contains(tmpl, "{OUTPUT_FILE}") {
		return "", func() {}, nil
	}
	dir, err := os.MkdirTemp("", "agentv-cli-")
	if err != nil {
		return "", nil, fmt.Errorf("cli target %q: could not create a directory for {OUTPUT_FILE}: %w", p.target.Name, err)
	}
	return filepath.Join(dir, name), p.removeLater(dir, "kept output files in"), nil
}

// removeLater removes path when called, unless keep_temp_files keeps it (and says so).
func (p *cliProvider) removeLater(path, kept string) func() {
	return func() {
		if p.cfg.KeepTemp {
			p.logf("cli target %q: %s %s", p.target.Name, kept, path)
			return
		}
		_ = os.RemoveAll(path)
	}
}

// promptFile writes prompt to a new temporary file for {PROMPT_FILE}, as AgentV 4.x does
// (agentv-<eval id>-<epoch ms>-<random>.prompt.txt in the temporary folder; the id made safe
// as a file name, which 4.42.4 does not do), and returns its path and the function that
// removes it; "" when the template does not use {PROMPT_FILE}.
func (p *cliProvider) promptFile(tmpl, evalID, prompt string) (path string, done func(), err error) {
	if !strings.Contains(tmpl, "{PROMPT_FILE}") {
		return "", func() {}, nil
	}
	f, err := os.CreateTemp("", fmt.Sprintf("agentv-%s-%d-*.prompt.txt", cliFileName(evalID), time.Now().UnixMilli()))
	if err != nil {
		return "", nil, fmt.Errorf("cli target %q: could not create the {PROMPT_FILE}: %w", p.target.Name, err)
	}
	path = f.Name()
	_, err = f.WriteString(prompt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", nil, fmt.Errorf("cli target %q: could not write the {PROMPT_FILE} %s: %w", p.target.Name, path, err)
	}
	return path, p.removeLater(path, "kept the prompt file"), nil
}

func (p *cliProvider) verbose() bool { return p.cfg.Verbose || p.opts.Verbose }

func (p *cliProvider) logf(format string, args ...any) {
	if p.opts.Logf != nil {
		p.opts.Logf(format, args...)
	}
}

func (p *cliProvider) warn(warns []string) {
	for _, w := range warns {
		p.logf("cli target %q: %s", p.target.Name, w)
	}
}

// cliFileName makes an eval id safe as a file name.
func cliFileName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 || strings.Trim(b.String(), ".") == "" {
		return "output"
	}
	return b.String()
}
