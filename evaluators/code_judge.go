package evaluators

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// stdoutInError is how much of a judge's stdout an error quotes.
const stdoutInError = 300

// The loader reads a code judge's script, cwd, target proxy and config: nothing is left here.
func init() {
	register(suite.TypeCodeJudge, []string{"code"}, func(*suite.EvaluatorSpec) (struct{}, error) { return struct{}{}, nil }, codeJudge)
}

// codeJudge runs a user script with the payload on stdin; its trimmed stdout must be one
// JSON object {score, hits?, misses?, reasoning?, details?}; the score is clamped to [0, 1].
func codeJudge(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec, _ struct{}) verdict {
	if r.rules.As442 {
		return codeGraderV4(ctx, r, spec)
	}
	cwd := spec.Cwd
	if cwd == "" {
		cwd = r.dir()
	}
	request := codeRequest(spec.Script, cwd)
	if len(spec.Script) == 0 {
		return errorf(request, "code_judge has no script")
	}
	payload, err := r.data.payload(spec.Config)
	if err != nil {
		return errorf(request, "could not build the judge payload: %v", err)
	}
	// A .ts/.js/.py path runs with the interpreter prompt templates get.
	argv, env, err := jsruntime.Resolver{}.JudgeCommand(spec.Script, cwd)
	if err != nil {
		return errorf(request, "code judge: %v", err)
	}
	if spec.TargetProxy == nil {
		return r.runJudgeScript(ctx, "code judge", argv, cwd, payload, request, env)
	}
	proxy, err := r.startProxy(ctx, spec.TargetProxy.MaxCalls)
	if err != nil {
		return errorf(request, "could not start the target proxy: %v", err)
	}
	v := r.runJudgeScript(ctx, "code judge", argv, cwd, payload, request, append(env, proxy.env()...))
	// Closed before the judge's result is read: no call can come in after the judge ended.
	proxy.close()
	rec := make([]byte, 0, len(request)+64)
	rec = append(rec, request[:len(request)-1]...) // {script, cwd} without its closing brace
	rec = append(rec, `,"target_proxy":`...)
	rec = append(rec, proxy.record()...)
	v.request = append(rec, '}')
	return v
}

// runJudgeScript runs a judge process (code judges, composite aggregators) with stdin and
// env added to its environment, and reads its result object. what names the script in errors.
func (r *caseRun) runJudgeScript(ctx context.Context, what string, argv []string, cwd string, stdin []byte, request json.RawMessage, env []string) verdict {
	// argv runs directly: no shell unless the script was a string (then it is sh -c already).
	cmd := proc.Cmd{Argv: argv, Dir: cwd, Env: r.childEnv(append(sdkEnv(argv), env...)), Stdin: stdin, Timeout: r.opts.Timeout}
	var res *proc.Result
	err := r.withRetries(ctx, func() (err error) {
		res, err = proc.Run(ctx, cmd)
		return err
	})
	if err != nil {
		var perr *proc.Error
		if errors.As(err, &perr) && !perr.TimedOut && strings.TrimSpace(perr.Stderr) == "" && res != nil {
			// No stderr to explain the failure: the start of stdout often does.
			if out := strings.TrimSpace(string(res.Stdout)); out != "" {
				return errorf(request, "%s %v; stdout: %s", what, err, proc.Excerpt(out, stdoutInError))
			}
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
