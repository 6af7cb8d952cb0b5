package evaluators

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/forkserver"
	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/jsworker"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// stdoutInError is how much of a judge's stdout an error quotes.
const stdoutInError = 300

// The loader reads a code judge's script, cwd, target proxy and config: nothing is left here.
func init() {
	register(suite.TypeCodeJudge, []string{"code"}, nil, func(*suite.EvaluatorSpec) (struct{}, error) { return struct{}{}, nil }, codeJudge)
}

// codeJudge runs a user script with the payload on stdin and reads its result object
// (parseJudgeOutput; under 4.42.4's rules runV4Script).
func codeJudge(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec, _ struct{}) verdict {
	what, missing, reader, v4 := "code judge", "code_judge has no script", "judge", r.rules.As442
	if v4 {
		what, missing, reader = "code-grader", "code-grader has no command", "grader"
	}
	cwd := cmp.Or(spec.Cwd, r.dir())
	request := codeRequest(spec.Script, cwd)
	if len(spec.Script) == 0 {
		return errorf(request, "%s", missing)
	}
	opts := v4PayloadOpts{config: spec.Config}
	if v4 {
		if enc, _ := jsonx.Marshal(r.in.Candidate); len(enc) > v4FileBackedOutput {
			dir, err := os.MkdirTemp("", "agentv-grader-")
			if err != nil {
				return errorf(request, "could not write the answer for the grader: %v", err)
			}
			defer os.RemoveAll(dir)
			opts.outputPath = filepath.Join(dir, "output.json")
			if err := os.WriteFile(opts.outputPath, enc, 0o600); err != nil {
				return errorf(request, "could not write the answer for the grader: %v", err)
			}
		}
	}
	payload, err := r.payload(opts)
	if err != nil {
		return errorf(request, "could not build the %s payload: %v", reader, err)
	}
	// A .ts/.js/.py path runs with the interpreter prompt templates get.
	argv, env, err := jsruntime.Resolver{}.JudgeCommand(spec.Script, cwd)
	if err != nil {
		return errorf(request, "%s: %v", what, err)
	}
	var proxy *targetProxy
	if spec.TargetProxy != nil {
		if proxy, err = r.startProxy(ctx, spec.TargetProxy.MaxCalls); err != nil {
			return errorf(request, "could not start the target proxy: %v", err)
		}
		env = append(env, proxy.env()...)
	}
	var v verdict
	if v4 {
		v = r.runV4Script(ctx, argv, cwd, payload, request, env)
	} else {
		v = r.runJudgeScript(ctx, what, argv, cwd, payload, request, env)
	}
	if proxy == nil {
		return v
	}
	// Closed before the judge's result is read: no call can come in after the judge ended.
	proxy.close()
	rec := make([]byte, 0, len(request)+64)
	rec = append(rec, request[:len(request)-1]...) // {script, cwd} without its closing brace
	rec = append(rec, `,"target_proxy":`...)
	rec = append(rec, proxy.record()...)
	v.request = append(rec, '}')
	return v
}

// runProcess runs a grader's process (a judge, an aggregator, a prompt template) in dir with
// the run's timeout and retries, stdin on its stdin and env added to the judge environment.
func (r *caseRun) runProcess(ctx context.Context, argv []string, dir string, stdin []byte, env []string) (*proc.Result, error) {
	cmd := proc.Cmd{Argv: argv, Dir: dir, Env: r.childEnv(env), Stdin: stdin, Timeout: r.opts.Timeout}
	run := runner(env)
	var res *proc.Result
	err := r.withRetries(ctx, func() (err error) {
		res, err = run(ctx, cmd)
		return err
	})
	return res, err
}

// runner picks how a grader process starts: a JavaScript or TypeScript SDK grader in a worker
// (jsworker), a Python script from a fork server (forkserver), anything else, and everything
// under --grader-isolation process, spawned. A call with a target proxy has an environment of
// its own (the proxy's address and token), which no worker may be kept for.
func runner(env []string) func(context.Context, proc.Cmd) (*proc.Result, error) {
	switch {
	case !forkserver.Enabled():
		return proc.Run
	case slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, EnvProxyURL+"=") }):
		return forkserver.Run
	}
	return func(ctx context.Context, c proc.Cmd) (*proc.Result, error) {
		if forkserver.Eligible(c.Argv) {
			return forkserver.Run(ctx, c)
		}
		return jsworker.Run(ctx, c) // spawns what is not an SDK grader
	}
}

// runJudgeScript runs a judge process (code judges, composite aggregators) with stdin and
// env added to its environment, and reads its result object. what names the script in errors.
func (r *caseRun) runJudgeScript(ctx context.Context, what string, argv []string, cwd string, stdin []byte, request json.RawMessage, env []string) verdict {
	// argv runs directly: no shell unless the script was a string (then it is sh -c already).
	res, err := r.runProcess(ctx, argv, cwd, stdin, append(sdkEnv(argv), env...))
	if err != nil {
		var perr *proc.Error
		if errors.As(err, &perr) && !perr.TimedOut && res != nil {
			return failed(request, what, err, res.Stdout, perr.Stderr)
		}
		return errorf(request, "%s %v", what, err)
	}
	if res.StdoutTruncated {
		return errorf(request, "%s printed more than %d MiB on stdout (output cut off); want one JSON object, got: %s",
			what, proc.DefaultMaxOutput>>20, proc.Excerpt(string(res.Stdout), stdoutInError))
	}
	out := bytes.TrimSpace(res.Stdout)
	if len(out) == 0 {
		return errorf(request, "%s printed nothing on stdout; want one JSON object {\"score\": 0..1, ...}%s", what, stderrNote(res.Stderr))
	}
	if out[0] != '{' || !json.Valid(out) {
		return errorf(request, "%s did not print one JSON object: %s%s", what, proc.Excerpt(string(out), stdoutInError), stderrNote(res.Stderr))
	}
	v := parseJudgeOutput(out)
	v.request = request
	return v
}

// parseJudgeOutput reads a code judge's result object (as AgentV 2.5 reads it): a missing or
// non-number score is 0 (with a miss saying so), hits and misses keep non-blank strings. The
// AgentV 4.x form `assertions: [{text, passed, evidence?}]` (what @agentv/sdk graders print) adds
// its passed checks to the hits, the others to the misses and `text: evidence` to the reasoning,
// and a result without a score then scores the share that passed.
func parseJudgeOutput(out []byte) verdict {
	var obj struct {
		Score      json.RawMessage `json:"score"`
		Hits       json.RawMessage `json:"hits"`
		Misses     json.RawMessage `json:"misses"`
		Assertions json.RawMessage `json:"assertions"`
		Reasoning  json.RawMessage `json:"reasoning"`
		Details    json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		return verdict{err: fmt.Errorf("code judge output: %w", err)}
	}
	v := verdict{hits: stringItems(obj.Hits, 0), misses: stringItems(obj.Misses, 0)}
	_ = json.Unmarshal(obj.Reasoning, &v.reasoning)
	passed, total := addChecks(&v, obj.Assertions)
	score, ok := parseScore(obj.Score)
	switch {
	case ok:
	case total > 0:
		score = float64(passed) / float64(total)
	default:
		v.misses = append(v.misses, "code judge result has no numeric score")
	}
	v.score = score
	if !isNull(obj.Details) {
		v.details, _ = jsonx.AppendCompact(nil, obj.Details)
	}
	return v
}

// addChecks reads AgentV 4.x `assertions` ({text, passed, evidence?} objects; others are
// skipped) into v and counts them.
func addChecks(v *verdict, raw json.RawMessage) (passed, total int) {
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items) // anything but a list has no items
	var evidence []string
	for _, it := range items {
		var a struct {
			Text     *string `json:"text"`
			Passed   bool    `json:"passed"`
			Evidence string  `json:"evidence"`
		}
		if json.Unmarshal(it, &a) != nil || a.Text == nil {
			continue
		}
		total++
		if a.Passed {
			passed++
			v.hits = append(v.hits, *a.Text)
		} else {
			v.misses = append(v.misses, *a.Text)
		}
		if e := strings.TrimSpace(a.Evidence); e != "" {
			evidence = append(evidence, *a.Text+": "+e)
		}
	}
	if len(evidence) > 0 {
		v.reasoning = strings.TrimSpace(v.reasoning + " " + strings.Join(evidence, "; "))
	}
	return passed, total
}

// failed is the verdict of a script that failed with err: with no stderr to explain it, the
// start of stdout often does.
func failed(request json.RawMessage, what string, err error, stdout []byte, stderr string) verdict {
	if out := bytes.TrimSpace(stdout); len(out) > 0 && strings.TrimSpace(stderr) == "" {
		return errorf(request, "%s %v; stdout: %s", what, err, proc.Excerpt(string(out), stdoutInError))
	}
	return errorf(request, "%s %v", what, err)
}

func stderrNote(stderr []byte) string {
	if s := strings.TrimSpace(string(stderr)); s != "" {
		return "; stderr: " + proc.Excerpt(s, stdoutInError)
	}
	return ""
}

// codeRequest renders evaluator_provider_request {script, cwd}.
func codeRequest(script []string, cwd string) json.RawMessage {
	if script == nil {
		script = []string{}
	}
	b, _ := jsonx.Marshal(struct {
		Script []string `json:"script"`
		Cwd    string   `json:"cwd"`
	}{script, cwd}) // strings always encode
	return b
}

// sdkEnv points JavaScript runtimes started from an explicit argv (node, bun, tsx, or a
// shell that runs them) at the bundled @agentv/eval SDK; a user's own node_modules copy
// still wins. Python and other interpreters need nothing.
func sdkEnv(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	switch base := strings.ToLower(filepath.Base(argv[0])); {
	case strings.HasPrefix(base, "python"), base == "ruby", base == "perl":
		return nil
	}
	env, err := (jsruntime.Resolver{}).SDKEnv()
	if err != nil {
		return nil // the script still runs; only an import of @agentv/eval would fail
	}
	return env
}

// runV4Script runs a 4.x code-grader. A failed exit with JSON on stdout or anything on stderr,
// a timeout, or a start failure cannot score; a failed exit with plain stdout scores 0.
func (r *caseRun) runV4Script(ctx context.Context, argv []string, cwd string, stdin []byte, request json.RawMessage, env []string) verdict {
	const what = "code-grader"
	res, err := r.runProcess(ctx, argv, cwd, stdin, append(sdkEnv(argv), env...))
	exit := 0
	if err != nil {
		var perr *proc.Error
		if !errors.As(err, &perr) || perr.TimedOut || perr.ExitCode < 0 || res == nil {
			return errorf(request, "%s %v", what, err)
		}
		out := bytes.TrimSpace(res.Stdout)
		if len(out) > 0 && (out[0] == '{' || out[0] == '[') || strings.TrimSpace(perr.Stderr) != "" {
			return failed(request, what, err, out, perr.Stderr)
		}
		exit = perr.ExitCode
	}
	if res.StdoutTruncated {
		return errorf(request, "%s printed more than %d MiB on stdout (output cut off)", what, proc.DefaultMaxOutput>>20)
	}
	out := bytes.TrimSpace(res.Stdout)
	if len(out) > 0 && out[0] == '{' && json.Valid(out) && exit == 0 {
		v := parseV4GraderOutput(out)
		v.request = request
		return v
	}
	// Not the JSON protocol: the exit code is the verdict, stdout its text.
	text := cmp.Or(string(out), "exit "+strconv.Itoa(exit))
	v := v4Verdict(b2f(exit == 0), []v4Assertion{{Text: text, Passed: exit == 0}})
	v.request = request
	return v
}

// parseV4GraderOutput reads a 4.x code-grader's result object.
func parseV4GraderOutput(out []byte) verdict {
	var obj struct {
		Score      json.RawMessage   `json:"score"`
		Assertions []json.RawMessage `json:"assertions"`
		Hits       json.RawMessage   `json:"hits"`
		Misses     json.RawMessage   `json:"misses"`
		Reasoning  json.RawMessage   `json:"reasoning"`
		Details    json.RawMessage   `json:"details"`
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		return verdict{err: errors.New("code-grader output: " + err.Error())}
	}
	var as []v4Assertion
	for _, raw := range obj.Assertions {
		var a struct {
			Text     *string         `json:"text"`
			Passed   json.RawMessage `json:"passed"`
			Evidence json.RawMessage `json:"evidence"`
		}
		if json.Unmarshal(raw, &a) != nil || a.Text == nil {
			continue // only items with a string text count
		}
		item := v4Assertion{Text: *a.Text, Passed: jsTruthy(a.Passed)}
		var ev string
		if json.Unmarshal(a.Evidence, &ev) == nil {
			item.Evidence = &ev
		}
		as = append(as, item)
	}
	v := v4Verdict(0, as)
	if f, ok := parseScoreRaw(obj.Score); ok {
		v.score = clamp01(f)
	} else if len(as) > 0 {
		v.score = float64(len(v.hits)) / float64(len(as)) // the hits are the passed assertions
	}
	v.hits = append(v.hits, stringItems(obj.Hits, 0)...)
	v.misses = append(v.misses, stringItems(obj.Misses, 0)...)
	var reasoning string
	if json.Unmarshal(obj.Reasoning, &reasoning) == nil && strings.TrimSpace(reasoning) != "" {
		v.reasoning = strings.TrimSpace(strings.Join([]string{reasoning, v.reasoning}, " "))
	}
	if !isNull(obj.Details) && bytes.HasPrefix(bytes.TrimSpace(obj.Details), []byte("{")) {
		v.details, _ = jsonx.AppendCompact(nil, obj.Details)
	}
	return v
}

// jsTruthy is JavaScript's Boolean(value) for a JSON value.
func jsTruthy(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	switch s {
	case "", "false", "null", "0", "-0", `""`:
		return false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f != 0
	}
	return true
}
