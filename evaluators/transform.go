package evaluators

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/suite"
)

// A 5.x transform (output-transform.ts at v5.3.1-next.1) reshapes the answer before graders
// see it: a test's options.transform for all of its graders, an assertion's for that one
// alone, after the test's. It runs in a child Node.js process, as the javascript grader does.

// transformHarness calls the transform with (output, context) and prints {ok, result: {text,
// value}}:
// text is what text graders see (a string as it is, anything else as indented JSON), value
// what a later transform gets. An inline transform on one line is an expression, on several
// a function body; a module's named export, else its default export, else the module.
const transformHarness = `
const fs = require('fs');
const url = require('url');
const reply = (o) => process.stdout.write('\n' + JSON.stringify(o) + '\n');
(async () => {
  const p = JSON.parse(fs.readFileSync(0, 'utf8'));
  let fn;
  if (p.file) {
    const mod = await import(url.pathToFileURL(p.file).href);
    fn = p.fn ? mod[p.fn] : (mod.default ?? mod);
    if (typeof fn !== 'function') {
      throw new Error(p.fn ? 'the module must export function "' + p.fn + '"' : 'the module must export a function or a default function');
    }
  } else {
    fn = new Function('output', 'context', p.code.includes('\n') ? p.code : 'return ' + p.code);
  }
  const value = await fn(p.output, p.context);
  if (value === undefined || value === null) throw new Error('Transform function did not return a value');
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  if (text === undefined) throw new Error('the transform returned a value that is not JSON: ' + typeof value);
  reply({ ok: true, result: { text, value: JSON.parse(JSON.stringify(value)) } });
})().catch((e) => reply({ ok: false, error: e instanceof Error ? e.message : String(e) }));
`

// transformed is the answer after a transform: its text and its JSON value.
type transformed struct {
	text  string
	value json.RawMessage
}

var spaces = regexp.MustCompile(`\s+`)

// transformLabel names a transform in errors as 5.x does: the file, or the code on one line.
func transformLabel(t *suite.Transform) string {
	if t.File != "" {
		return "[file transform]"
	}
	code := strings.TrimSpace(spaces.ReplaceAllString(t.Code, " "))
	if len(code) > 80 {
		code = code[:79] + "..."
	}
	return "[inline transform]: " + code
}

// runTransform runs t on input (a JSON value) with the case's context. The error reads as
// 5.x's "Transform failed (label): message".
func (r *caseRun) runTransform(ctx context.Context, t *suite.Transform, input json.RawMessage) (*transformed, error) {
	fail := func(msg string) error {
		return fmt.Errorf("Transform failed (%s): %s", transformLabel(t), msg) //nolint:staticcheck // 5.x's words, capital and all
	}
	node, err := jsInterpreter()
	if err != nil {
		return nil, fail(err.Error())
	}
	tctx, err := r.transformContext()
	if err != nil {
		return nil, fail(err.Error())
	}
	stdin, err := jsonx.Marshal(struct {
		Code    string          `json:"code,omitempty"`
		File    string          `json:"file,omitempty"`
		Fn      string          `json:"fn,omitempty"`
		Output  json.RawMessage `json:"output"`
		Context json.RawMessage `json:"context"`
	}{t.Code, t.File, t.Fn, input, tctx})
	if err != nil {
		return nil, fail(err.Error())
	}
	res, err := r.runProcess(ctx, []string{node, "-e", transformHarness}, r.dir(), stdin, nil)
	reply, failure := harnessReply(res, err)
	switch {
	case failure != nil:
		return nil, fail(failure.Error())
	case reply == nil:
		return nil, fail(processFailure(res, err))
	case !reply.OK:
		return nil, fail(reply.Error)
	}
	var out struct {
		Text  *string         `json:"text"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(reply.Result, &out); err != nil || out.Text == nil {
		return nil, fail("the transform process replied without a value")
	}
	return &transformed{text: *out.Text, value: out.Value}, nil
}

// transformContext is the transform's second argument: the test's vars, its prompt, its
// metadata and the target (buildTransformContext).
func (r *caseRun) transformContext() (json.RawMessage, error) {
	c := r.in.Case
	type prompt struct {
		ID    string `json:"id,omitempty"`
		Label string `json:"label,omitempty"`
		Raw   string `json:"raw"`
	}
	type provider struct {
		ID     string `json:"id"`
		Kind   string `json:"kind"`
		Target string `json:"target"`
	}
	var tc struct {
		Vars     json.RawMessage `json:"vars,omitempty"`
		Prompt   prompt          `json:"prompt"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
		Provider *provider       `json:"provider,omitempty"`
	}
	tc.Vars, tc.Metadata = c.Vars, c.Metadata
	tc.Prompt.Raw = c.Question
	if c.Prompt != nil {
		tc.Prompt = prompt{ID: c.Prompt.ID, Label: c.Prompt.Label, Raw: c.Prompt.Raw}
	}
	if t := r.in.Target; t != nil {
		tc.Provider = &provider{ID: t.Name, Kind: t.Kind, Target: t.Name}
	}
	return jsonx.Marshal(tc)
}

// withTransform is r with the answer replaced by t's output, for one grader; the input the
// transform gets is the answer as the test's transform left it.
func (r *caseRun) withTransform(ctx context.Context, t *suite.Transform) (*caseRun, error) {
	input := r.answerValue
	if input == nil {
		b, err := jsonx.Marshal(r.in.Candidate)
		if err != nil {
			return nil, err
		}
		input = b
	}
	out, err := r.runTransform(ctx, t, input)
	if err != nil {
		return nil, err
	}
	in := *r.in
	in.Candidate = out.text
	cp := *r
	cp.in, cp.data, cp.answerValue = &in, caseData{in: &in}, out.value
	return &cp, nil
}

// transformFailed is the verdict of a grader whose transform failed: a failing score of 0,
// not an error (5.x's fallback score for a grader that threw).
func transformFailed(name string, err error) verdict {
	return verdict{score: 0, hits: []string{}, misses: []string{fmt.Sprintf("Grader '%s' failed: %s", name, err)},
		reasoning: err.Error(), forceFail: true}
}

// applyCaseTransform runs the case's transform once, before its graders: they all see its
// output. When it fails every grader errors with its message, so the case is an error
// scoring 0, as 5.x fails the whole test (orchestrator.ts, prepareCandidateForGrading).
func (r *caseRun) applyCaseTransform(ctx context.Context) {
	t := r.in.Case.Transform
	if t == nil {
		return
	}
	cp, err := r.withTransform(ctx, t)
	if err != nil {
		r.caseErr = err
		return
	}
	r.in, r.data, r.answerValue = cp.in, caseData{in: cp.in}, cp.answerValue
}

// gradeTransformed runs eval on the answer as spec's own transform shapes it.
func (r *caseRun) gradeTransformed(ctx context.Context, spec *suite.EvaluatorSpec, name string, eval evaluator) verdict {
	cp, err := r.withTransform(ctx, spec.Transform)
	if err != nil {
		return transformFailed(name, err)
	}
	v := eval(ctx, cp, spec)
	r.retries = cp.retries
	return v
}
