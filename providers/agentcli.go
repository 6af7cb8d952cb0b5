package providers

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// agentExcerpt is how much of stdout and stderr an agent error message carries.
const agentExcerpt = 1500

// agentMaxOutput caps what an agent CLI may print (per stream). An agent's JSON stream carries
// every file it read; its verdict comes last, so the cap is well above proc's default.
const agentMaxOutput = 64 << 20

// jsonLines hands each non-blank line of out that starts with '{' to add, and counts the
// lines that do not or that add refuses. A line longer than maxLine stops the reading (err).
func jsonLines(out []byte, maxLine int, add func([]byte) bool) (skipped int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || !add(line) {
			skipped++
		}
	}
	return skipped, sc.Err()
}

// agentSpec is what differs between the agent CLI providers that share agentCLI.
type agentSpec struct {
	name         string   // in messages and in workspace and log file names: "codex", "claude"
	exe          string   // default executable
	install      string   // how to install the CLI, for the not-found error
	system       string   // default header of the prompt document
	logFormatEnv []string // environment variables read when log_format is not set
	secretEnv    []string // the CLI's credential variables: their values are masked everywhere
	dropEnv      []string // variables removed from the child's environment
	stdoutTail   bool     // errors quote the end of stdout (where the verdict is), not its start
}

// agentCLI is what the agent CLI providers (codex, claude) share, read from the same settings,
// and one run in a fresh temporary workspace. Providers embed it.
type agentCLI struct {
	spec      agentSpec
	t         *targets.Target
	exe       string
	args      []string
	cwd       string // "" : the temporary workspace; relative: see workDir
	timeout   time.Duration
	logDir    string // "" : logs stay in the workspace, kept only on failure
	logFormat string // json | summary
	// rawLogDir and rawLogFormat are the settings as written ("" : unset), for 4.42.4's logs.
	rawLogDir, rawLogFormat string
	hasLogFormat            bool
	system                  string
	userSystem              string // the target's own system_prompt, "" when it has none
	env                     []string
	logf                    func(string, ...any)
}

func newAgentCLI(t *targets.Target, opts Options, spec agentSpec) (*agentCLI, error) {
	a := &agentCLI{spec: spec, t: t, exe: spec.exe, system: spec.system, logFormat: "json", logf: opts.Logf}
	r := &targets.Reader{T: t}
	if v := r.Trimmed("executable", "command", "binary"); v != "" {
		a.exe = resolvePath(t, v, true)
	}
	a.args, _ = r.Strings("args", "arguments")
	// A relative cwd depends on the eval file that runs (one target serves several), so it is
	// resolved per request and checked by the healthcheck of each eval folder.
	if a.cwd = r.Trimmed("cwd"); filepath.IsAbs(a.cwd) {
		r.Check(a.checkWorkDir(a.cwd, suite.AgentRules{}))
	}
	a.timeout = r.Seconds("timeout_seconds", opts.Timeout)
	if a.rawLogDir = r.Trimmed("log_dir", "log_directory", "logs_dir", "stream_log_dir"); a.rawLogDir != "" {
		a.logDir = resolvePath(t, a.rawLogDir, false)
	}
	format, ok := r.String("log_format", "log_output_format")
	a.rawLogFormat, a.hasLogFormat = format, ok
	for _, name := range spec.logFormatEnv {
		if ok || t.Env == nil {
			break
		}
		format, ok = t.Env(name)
	}
	switch f := strings.ToLower(strings.TrimSpace(format)); f {
	case "", "json":
	case "summary":
		a.logFormat = f
	default:
		r.Fail("log_format", "want json or summary, got %q", format)
	}
	if v := r.Trimmed("system_prompt"); v != "" {
		a.system, a.userSystem = v, v
	}
	if r.Err != nil {
		return nil, r.Err
	}
	// Child processes lose the GitHub token unless this target references it: an agent under test
	// must not act on the repository with the workflow's token.
	for _, kv := range proc.ChildEnv(opts.environ(), nil, t.ReferencedVars()...) {
		name, value, _ := strings.Cut(kv, "=")
		if slices.Contains(spec.dropEnv, name) {
			continue
		}
		// The CLI's own credentials come from the environment, not from a setting: mask them.
		if slices.Contains(spec.secretEnv, name) && t.Redactor != nil {
			t.Redactor.Add(value)
		}
		a.env = append(a.env, kv)
	}
	return a, nil
}

// workDir is the configured cwd, "" when none is configured. A relative cwd in a 4.x file
// resolves against the working directory, as AgentV 4.42.4 resolves it (path.resolve in
// claude-cli.ts and codex.ts, resolveCwd); in a 2.5 file against evalDir (the eval file's
// folder; else the targets file's).
func (a *agentCLI) workDir(evalDir string, rules suite.AgentRules) string {
	if a.cwd == "" || filepath.IsAbs(a.cwd) {
		return a.cwd
	}
	if rules.CwdFromWorkDir {
		if abs, err := filepath.Abs(a.cwd); err == nil {
			return abs
		}
		return a.cwd
	}
	return filepath.Join(cmp.Or(evalDir, a.t.Dir), a.cwd)
}

// checkWorkDir says when the folder workDir resolved by rules is not there, and where a
// relative cwd taken from the working directory was looked for.
func (a *agentCLI) checkWorkDir(dir string, rules suite.AgentRules) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if rules.CwdFromWorkDir && !filepath.IsAbs(a.cwd) {
			return a.t.Error("cwd", "directory %q does not exist (in a 4.x eval file a relative cwd is taken from the "+
				"working directory, as AgentV 4.42.4 takes it)", dir)
		}
		return a.t.Error("cwd", "directory %q does not exist", dir)
	}
	return nil
}

func (a *agentCLI) Target() *targets.Target { return a.t }

// HealthCheck finds the executable and, for the eval folder the runner names, the cwd, before
// the first case runs.
func (a *agentCLI) HealthCheck(ctx context.Context) error {
	if _, err := a.lookPath(); err != nil {
		return err
	}
	rules := ctxValue[suite.AgentRules](ctx, agentRulesKey)
	if dir := a.workDir(ctxValue[string](ctx, evalDirKey), rules); dir != "" {
		return a.checkWorkDir(dir, rules)
	}
	return nil
}

func (a *agentCLI) lookPath() (string, error) {
	path, err := exec.LookPath(a.exe)
	if err != nil {
		return "", &AgentError{Agent: a.spec.name, Target: a.t.Name, Msg: fmt.Sprintf("executable %q not found (install %s, "+
			"or set `executable` in targets.yaml): %v", a.exe, a.spec.install, err)}
	}
	return path, nil
}

// AgentError is a failed run of an agent CLI (codex, claude): it carries what the agent printed
// and where the logs are.
type AgentError struct {
	Agent    string // codex | claude
	Target   string
	Msg      string
	ExitCode int // -1 when the agent did not exit normally (timeout, signal), 0 when it exited cleanly
	Stdout   string
	Stderr   string
	Logs     []string
	err      error
}

func (e *AgentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s target %q: %s", e.Agent, e.Target, e.Msg)
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
func (e *AgentError) Unwrap() error { return e.err }

// agentReport is what an agent's stream says about a run, for errors and logs.
type agentReport struct {
	Failure string        // the error the agent reported, "" if none
	Summary func() string // renders the readable log (log_format: summary)
}

// agentRun is one finished run of an agent CLI that exited cleanly. Close removes its workspace
// unless Fail kept it.
type agentRun struct {
	a              *agentCLI
	Stdout, Stderr []byte // redacted
	Truncated      bool   // stdout hit agentMaxOutput
	Logs           []string
	logErr         error
	ws             string
	keep, liveLog  bool // liveLog: the logs are an agentLog's, outside the workspace
	DurationMS     float64
}

// agentLog is a log written while the agent runs, in place of the logs run writes after it
// (a claude target's stream log in 4.x files): it gets stdout as it arrives.
type agentLog interface {
	io.Writer
	Close() error
	Path() string
}

// run writes the prompt document to prompt.md in a fresh workspace, runs argv there (or in
// cwd) with the document on stdin, redacts what the agent printed, hands stdout to parse and
// writes the logs (or has live write them). A run that did not exit cleanly is returned as an
// *AgentError.
func (a *agentCLI) run(ctx context.Context, req *Request, argv []string, doc string, parse func(stdout []byte) agentReport, live agentLog) (*agentRun, error) {
	name := a.spec.name
	ws, err := os.MkdirTemp("", "agentv-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("%s target %q: could not create a workspace: %w", name, a.t.Name, err)
	}
	r := &agentRun{a: a, ws: ws}
	if err := os.WriteFile(filepath.Join(ws, "prompt.md"), []byte(doc), 0o600); err != nil {
		r.Close()
		return nil, fmt.Errorf("%s target %q: could not write prompt.md: %w", name, a.t.Name, err)
	}
	dir := a.workDir(req.Dir, req.Agent)
	if req.Workspace != "" {
		dir = req.Workspace // the suite's workspace wins over the target's cwd, as in AgentV 4.x
	} else if dir != "" {
		if err := a.checkWorkDir(dir, req.Agent); err != nil {
			r.Close()
			return nil, err
		}
	}
	// A nil live stays a nil io.Writer: no tee.
	cmd := proc.Cmd{Argv: argv, Dir: cmp.Or(dir, ws), Env: a.env, Stdin: []byte(doc), Timeout: a.timeout,
		MaxOutput: agentMaxOutput, StdoutTee: live}
	start := time.Now()
	res, runErr := proc.Run(ctx, cmd)
	r.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	if res != nil {
		r.Stdout, r.Stderr, r.Truncated = a.t.Redactor.Bytes(res.Stdout), a.t.Redactor.Bytes(res.Stderr), res.StdoutTruncated
	}
	report := parse(r.Stdout)
	if live != nil {
		r.logErr, r.liveLog = live.Close(), true
		if p := live.Path(); p != "" {
			r.Logs = []string{p}
		}
	} else {
		r.Logs, r.logErr = a.writeLogs(cmp.Or(a.logDir, ws), req, r.Stdout, r.Stderr, report.Summary)
	}
	if runErr == nil {
		if a.logf != nil && a.logDir != "" && live == nil {
			a.logf("%s target %q: case %s: logs in %s", name, a.t.Name, req.EvalID, strings.Join(r.Logs, ", "))
		}
		return r, nil
	}
	defer r.Close()
	var pe *proc.Error
	switch {
	case errors.As(runErr, &pe) && pe.TimedOut:
		return nil, r.Fail(fmt.Sprintf("%s timed out after %s", name, pe.Timeout), runErr, -1)
	case ctx.Err() != nil:
		return nil, r.Fail(name+" was stopped: "+ctx.Err().Error(), ctx.Err(), -1)
	case errors.As(runErr, &pe) && pe.ExitCode >= 0:
		msg := fmt.Sprintf("%s exited with code %d", name, pe.ExitCode)
		if report.Failure != "" {
			msg += ": " + report.Failure
		}
		return nil, r.Fail(msg, runErr, pe.ExitCode)
	default:
		return nil, r.Fail("could not run "+name+": "+runErr.Error(), runErr, -1)
	}
}

// Fail is the error of a run, with excerpts of its output and its logs; without log_dir the
// workspace holding the logs is kept, as the evidence.
func (r *agentRun) Fail(msg string, cause error, exit int) error {
	a := r.a
	if a.logDir == "" && len(r.Logs) > 0 && !r.liveLog {
		r.keep = true
	}
	if r.logErr != nil {
		msg += fmt.Sprintf(" (could not write logs: %v)", r.logErr)
	}
	stdout := proc.Excerpt(string(r.Stdout), agentExcerpt)
	if a.spec.stdoutTail {
		stdout = agentTail(string(r.Stdout), agentExcerpt)
	}
	return &AgentError{Agent: a.spec.name, Target: a.t.Name, Msg: a.t.Redactor.String(msg), ExitCode: exit, err: cause,
		Stdout: stdout, Stderr: agentTail(string(r.Stderr), agentExcerpt), Logs: r.Logs}
}

func agentTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// answer is the Response of a clean run: the agent's own duration when it reports one, and
// cost at the target's price when it has one (the user's rate wins over the CLI's estimate).
func (r *agentRun) answer(text string, msgs []suite.Message, u *Usage, cost, durationMS *float64) *Response {
	ms := r.DurationMS
	if durationMS != nil {
		ms = *durationMS
	}
	if c := targetCost(r.a.t, u); c != nil {
		cost = c
	}
	return &Response{Text: text, OutputMessages: msgs, Usage: u, CostUSD: cost, DurationMS: &ms}
}

// Close removes the workspace unless a failure keeps it.
func (r *agentRun) Close() {
	if !r.keep {
		_ = os.RemoveAll(r.ws)
	}
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeLogs writes the agent's stdout (its JSONL stream) and stderr, already redacted, and a
// readable summary when log_format is summary. It returns the paths written.
func (a *agentCLI) writeLogs(dir string, req *Request, stdout, stderr []byte, summary func() string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	id := cmp.Or(unsafeFileChars.ReplaceAllString(req.EvalID, "_"), "case")
	base := filepath.Join(dir, fmt.Sprintf("%s-%s-attempt%d-%s", a.spec.name, id, req.Attempt, time.Now().UTC().Format("20060102T150405.000000000")))
	type file struct {
		path string
		data []byte
	}
	files := []file{{base + ".jsonl", stdout}, {base + ".stderr.log", stderr}}
	if a.logFormat == "summary" && summary != nil {
		files = append(files, file{base + ".summary.log", []byte(a.t.Redactor.String(summary()))})
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
