package evaluators

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// codeGraderV4 runs a code-grader of a 4.x file: the 4.x payload (with the 2.5 names beside
// it) on stdin, and 4.x's reading of the result: {score?, assertions?, details?} (2.5's hits,
// misses and reasoning still count), with no score the share of passed assertions (else 0); a
// stdout that is not a JSON object is judged by the exit code (0 passes, with stdout as the
// assertion's text).
func codeGraderV4(ctx context.Context, r *caseRun, spec *suite.EvaluatorSpec) verdict {
	cwd := spec.Cwd
	if cwd == "" {
		cwd = r.dir()
	}
	request := codeRequest(spec.Script, cwd)
	if len(spec.Script) == 0 {
		return errorf(request, "code-grader has no command")
	}
	opts := v4PayloadOpts{config: spec.Config}
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
	payload, err := r.data.v4Payload(opts)
	if err != nil {
		return errorf(request, "could not build the grader payload: %v", err)
	}
	argv, env, err := jsruntime.Resolver{}.JudgeCommand(spec.Script, cwd)
	if err != nil {
		return errorf(request, "code-grader: %v", err)
	}
	var proxy *targetProxy
	if spec.TargetProxy != nil {
		if proxy, err = r.startProxy(ctx, spec.TargetProxy.MaxCalls); err != nil {
			return errorf(request, "could not start the target proxy: %v", err)
		}
		env = append(env, proxy.env()...)
	}
	v := r.runV4Script(ctx, argv, cwd, payload, request, env)
	if proxy != nil {
		proxy.close()
		rec := make([]byte, 0, len(request)+64)
		rec = append(rec, request[:len(request)-1]...)
		rec = append(rec, `,"target_proxy":`...)
		rec = append(rec, proxy.record()...)
		v.request = append(rec, '}')
	}
	return v
}

// runV4Script runs a 4.x code-grader. A failed exit with JSON on stdout or anything on stderr,
// a timeout, or a start failure cannot score; a failed exit with plain stdout scores 0.
func (r *caseRun) runV4Script(ctx context.Context, argv []string, cwd string, stdin []byte, request json.RawMessage, env []string) verdict {
	const what = "code-grader"
	cmd := proc.Cmd{Argv: argv, Dir: cwd, Env: r.childEnv(append(sdkEnv(argv), env...)), Stdin: stdin, Timeout: r.opts.Timeout}
	var res *proc.Result
	err := r.withRetries(ctx, func() (err error) {
		res, err = proc.Run(ctx, cmd)
		return err
	})
	exit := 0
	if err != nil {
		var perr *proc.Error
		if !errors.As(err, &perr) || perr.TimedOut || perr.ExitCode < 0 || res == nil {
			return errorf(request, "%s %v", what, err)
		}
		out := bytes.TrimSpace(res.Stdout)
		if len(out) > 0 && (out[0] == '{' || out[0] == '[') || strings.TrimSpace(perr.Stderr) != "" {
			if len(out) > 0 && strings.TrimSpace(perr.Stderr) == "" {
				return errorf(request, "%s %v; stdout: %s", what, err, proc.Excerpt(string(out), stdoutInError))
			}
			return errorf(request, "%s %v", what, err)
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
	text := string(out)
	if text == "" {
		text = "exit " + strconv.Itoa(exit)
	}
	a := []v4Assertion{{Text: text, Passed: exit == 0}}
	score := 0.0
	if exit == 0 {
		score = 1
	}
	v := v4Verdict(score, a)
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
	var score float64
	if f, ok := parseScoreRaw(obj.Score); ok {
		score = clamp01(f)
	} else if len(as) > 0 {
		passed := 0
		for _, a := range as {
			if a.Passed {
				passed++
			}
		}
		score = float64(passed) / float64(len(as))
	}
	v := v4Verdict(score, as)
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
