package evaluators

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// javascript (AgentV 5.x, promptfoo) runs JavaScript the author wrote against the answer:
// inline code, the body of a function of (output, context), or a file:// module's function.
func init() {
	register("javascript", nil, scriptAssertionKeys, parseJavascript, javascript)
}

// jsAssertion is a javascript entry: inline code made a function body, or a module file and
// the name of its function ("" for the module's default export).
type jsAssertion struct {
	*scriptAssertion
	body     string // as 5.x builds it; GradingRules.PromptfooJSBody builds it from the value
	file, fn string
}

func parseJavascript(spec *suite.EvaluatorSpec) (*jsAssertion, error) {
	cfg, err := parseScriptAssertion(spec, "JavaScript code such as output.includes('x'), or file://check.js[:function]")
	if err != nil {
		return nil, err
	}
	a := &jsAssertion{scriptAssertion: cfg}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(cfg.value), "file://"); ok {
		a.file, a.fn = splitFileRef(ref)
		if a.file == "" {
			return nil, settingErr("value", "file:// names no file: want file://path/to/check.js or file://check.js:functionName")
		}
		return a, nil
	}
	a.body = jsFunctionBody(cfg.value)
	return a, nil
}

// splitFileRef cuts "path.js:fn" into the path and the function name; a colon followed by a
// path separator (a Windows drive) is part of the path.
func splitFileRef(ref string) (file, fn string) {
	ref = strings.TrimSpace(ref)
	if i := strings.LastIndex(ref, ":"); i > 0 && !strings.ContainsAny(ref[i+1:], `/\`) {
		return ref[:i], strings.TrimSpace(ref[i+1:])
	}
	return ref, ""
}

var (
	trailingSemis = regexp.MustCompile(`;+\s*$`)
	hasReturn     = regexp.MustCompile(`\breturn\b`)
	declaration   = regexp.MustCompile(`^(const|let|var)\s`)
)

// jsFunctionBody makes inline code the body of a function, as 5.x's buildFunctionBody does
// (promptfoo-assertions.ts:102-113): code on several lines or with a `return` is the body as
// written; a one-line expression is returned; after declarations (`const a = 1; a > 0`) the
// last statement is returned.
func jsFunctionBody(code string) string {
	trimmed := trailingSemis.ReplaceAllString(strings.TrimSpace(code), "")
	if strings.Contains(trimmed, "\n") || hasReturn.MatchString(trimmed) {
		return trimmed
	}
	if last := strings.LastIndex(trimmed, ";"); declaration.MatchString(trimmed) && last >= 0 {
		return trimmed[:last+1] + " return " + strings.TrimSpace(trimmed[last+1:])
	}
	return "return " + trimmed
}

// jsHarness runs the author's function in a child Node.js (or bun) process: it reads
// {body | file, fn, output, context} on stdin and prints {ok, result} or {ok: false, error}.
// A number that is not finite is sent as 0, the score 5.x's clampScore makes of it.
const jsHarness = `
const fs = require('fs');
const url = require('url');
const reply = (o) => process.stdout.write('\n' + JSON.stringify(o) + '\n');
(async () => {
  const p = JSON.parse(fs.readFileSync(0, 'utf8'));
  let fn;
  if (p.file) {
    const mod = await import(url.pathToFileURL(p.file).href);
    const pick = (m) => (m == null ? undefined : p.fn ? m[p.fn] : typeof m === 'function' ? m : m.default);
    fn = pick(mod);
    if (typeof fn !== 'function') fn = pick(mod.default);
    if (typeof fn !== 'function') {
      throw new Error(p.fn ? p.file + ' exports no function ' + JSON.stringify(p.fn) : p.file + ' exports no default function');
    }
  } else {
    fn = new Function('output', 'context', p.body);
  }
  let r = await fn(p.output, p.context);
  if (typeof r === 'number' && !Number.isFinite(r)) r = 0;
  reply(r === undefined ? { ok: true } : { ok: true, result: r });
})().catch((e) => reply({ ok: false, error: e instanceof Error ? e.message : String(e) }));
`

func javascript(ctx context.Context, r *caseRun, _ *suite.EvaluatorSpec, a *jsAssertion) verdict {
	const label = "Javascript assertion"
	node, err := jsInterpreter()
	if err != nil {
		return verdict{err: err}
	}
	actx, err := r.assertionContext(a.config, true)
	if err != nil {
		return errorf(nil, "could not build the assertion context: %v", err)
	}
	file := a.file
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(r.dir(), file)
	}
	stdin, err := jsonx.Marshal(struct {
		Body    string          `json:"body,omitempty"`
		File    string          `json:"file,omitempty"`
		Fn      string          `json:"fn,omitempty"`
		Output  string          `json:"output"`
		Context json.RawMessage `json:"context"`
	}{a.bodyFor(r.rules), file, a.fn, r.in.Candidate, actx})
	if err != nil {
		return errorf(nil, "could not encode the assertion input: %v", err)
	}
	res, err := r.runProcess(ctx, []string{node, "-e", jsHarness}, r.dir(), stdin, nil)
	reply, failure := harnessReply(res, err)
	switch {
	case failure != nil:
		return verdict{err: fmt.Errorf("javascript assertion: %w", failure)}
	case reply == nil:
		return failedScript(label, processFailure(res, err))
	case !reply.OK && r.rules.GraderErrorFails:
		// promptfoo fails an assertion whose code threw with score 0, not- or not
		// (handleJavascript's catch), as any grader that could not grade.
		return verdict{err: fmt.Errorf("%s threw an error: %s", label, reply.Error)}
	case !reply.OK:
		return failedScript(label, reply.Error)
	}
	return scriptResult(reply.Result, label, a.threshold)
}

// bodyFor is the function body of inline code under the case's rules.
func (a *jsAssertion) bodyFor(rules suite.GradingRules) string {
	if a.body != "" && rules.PromptfooJSBody {
		return pfFunctionBody(a.value)
	}
	return a.body
}

// pfFunctionBody makes inline code a function body as promptfoo 0.123.1 does
// (handleJavascript, buildFunctionBody): code with a line break after trimming its end is the
// body as written; one line, its trailing semicolons dropped, is returned, after its
// declarations when it starts with const, let or var.
func pfFunctionBody(code string) string {
	code = strings.TrimRightFunc(code, unicode.IsSpace)
	if strings.Contains(code, "\n") {
		return code
	}
	trimmed := trailingSemis.ReplaceAllString(strings.TrimSpace(code), "")
	if declaration.MatchString(trimmed) {
		if last := lastStatementSemicolon(trimmed); last >= 0 {
			if expr := strings.TrimSpace(trimmed[last+1:]); expr != "" {
				return trimmed[:last+1] + " return " + expr
			}
		}
		return trimmed
	}
	return "return " + trimmed
}

// lastStatementSemicolon is the index of the last `;` outside quotes and template literals,
// -1 if none.
func lastStatementSemicolon(code string) int {
	var quote byte // the open quote, 0 outside one
	last := -1
	for i := 0; i < len(code); i++ {
		c := code[i]
		escaped := false
		for j := i - 1; j >= 0 && code[j] == '\\'; j-- {
			escaped = !escaped
		}
		switch {
		case escaped:
		case quote == 0 && (c == '\'' || c == '"' || c == '`'):
			quote = c
		case quote == c:
			quote = 0
		}
		if c == ';' && quote == 0 {
			last = i
		}
	}
	return last
}

// jsInterpreter finds node, else bun.
func jsInterpreter() (string, error) {
	for _, name := range []string{"node", "bun"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("javascript assertion needs Node.js or bun on PATH")
}

// harnessMessage is the last line a harness prints.
type harnessMessage struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// harnessReply reads a harness's last stdout line. failure is set when the process timed out
// or could not start (the run's problem, not the code's); reply is nil when the process
// ended without one (the code crashed it).
func harnessReply(res *proc.Result, err error) (reply *harnessMessage, failure error) {
	var perr *proc.Error
	if err != nil && (!errors.As(err, &perr) || perr.TimedOut || res == nil) {
		return nil, err
	}
	out := bytes.TrimSpace(res.Stdout)
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	var m harnessMessage
	if len(out) == 0 || out[0] != '{' || json.Unmarshal(out, &m) != nil {
		return nil, nil
	}
	return &m, nil
}

// processFailure says why a harness process printed no reply: its stderr, else its exit.
func processFailure(res *proc.Result, err error) string {
	if res != nil {
		if s := strings.TrimSpace(string(res.Stderr)); s != "" {
			return proc.Excerpt(s, 2000)
		}
	}
	if err != nil {
		return err.Error()
	}
	return "it printed no result"
}
