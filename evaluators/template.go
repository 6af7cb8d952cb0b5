package evaluators

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/jsruntime"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/suite"
)

// TemplateVariables are the names `{{ name }}` placeholders of custom judge prompts may use:
// AgentV's seven, then the newer payload names (actual_output = candidate_answer, expected_output =
// expected_messages, input = input_messages).
var TemplateVariables = []string{
	"candidate_answer", "expected_messages", "question", "expected_outcome", "reference_answer",
	"input_messages", "output_messages", "actual_output", "expected_output", "input",
}

// templateVars returns the lookup for `{{ }}` substitution, with AgentV 2.5's values;
// the JSON ones are rendered only when a template asks for them.
func (r *caseRun) templateVars() func(name string) (string, bool) {
	in, c := r.in, r.in.Case
	memo := map[string]string{}
	return func(name string) (string, bool) {
		if v, ok := memo[name]; ok {
			return v, true
		}
		var v string
		switch name {
		case "candidate_answer", "actual_output":
			v = strings.TrimSpace(in.Candidate)
		case "question":
			v = r.question()
		case "expected_outcome":
			v = strings.TrimSpace(c.ExpectedOutcome)
		case "reference_answer":
			v = strings.TrimSpace(c.ReferenceAnswer)
		case "expected_messages", "expected_output", "input_messages", "input", "output_messages":
			if err := r.data.messages(); err != nil {
				// Unrenderable data is a loader bug; show it in the prompt rather than fail.
				v = "(unavailable: " + err.Error() + ")"
				break
			}
			switch name {
			case "expected_messages", "expected_output":
				v = string(jsonx.Indent(r.data.expected))
			case "input_messages", "input":
				v = string(jsonx.Indent(r.data.input))
			default:
				v = "[]"
				if r.data.output != nil {
					v = string(jsonx.Indent(r.data.output))
				}
			}
		default:
			return "", false
		}
		memo[name] = v
		return v, true
	}
}

// question is the judge's view of the question: the formatted provider question, else the
// case's plain question text.
func (r *caseRun) question() string {
	if r.in.Request != nil {
		if q := strings.TrimSpace(r.in.Request.Question); q != "" {
			return q
		}
	}
	return strings.TrimSpace(r.in.Case.Question)
}

// substitute replaces `{{ name }}` placeholders (the regex `{{\s*([a-zA-Z0-9_]+)\s*}}`) whose
// name vars knows; unknown names stay as written. Inserted values are not scanned again.
func substitute(tmpl string, vars func(string) (string, bool)) string {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		k := strings.Index(tmpl[i:], "{{")
		if k < 0 {
			break
		}
		p := i + k
		end, name, ok := placeholderAt(tmpl, p)
		if !ok {
			i = p + 1
			continue
		}
		if v, found := vars(name); found {
			if b.Len() == 0 {
				b.Grow(len(tmpl) + len(v))
			}
			b.WriteString(tmpl[last:p])
			b.WriteString(v)
			last = end
		}
		i = end
	}
	if last == 0 {
		return tmpl
	}
	b.WriteString(tmpl[last:])
	return b.String()
}

// placeholderAt matches `{{\s*name\s*}}` at p (which holds "{{"), returning its end.
func placeholderAt(s string, p int) (end int, name string, ok bool) {
	j := skipSpace(s, p+2)
	n := j
	for n < len(s) && isNameByte(s[n]) {
		n++
	}
	if n == j {
		return 0, "", false
	}
	k := skipSpace(s, n)
	if !strings.HasPrefix(s[k:], "}}") {
		return 0, "", false
	}
	return k + 2, s[j:n], true
}

// skipSpace skips RE2's \s: tab, newline, form feed, carriage return and space.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '\t', '\n', '\f', '\r', ' ':
			i++
			continue
		}
		break
	}
	return i
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// customPrompt renders an llm_judge's custom user prompt (a text or executable template).
func (r *caseRun) customPrompt(ctx context.Context, spec *suite.EvaluatorSpec) (string, error) {
	p := spec.Prompt
	switch p.Kind {
	case suite.PromptInline, suite.PromptFile:
		return substitute(p.Text, r.templateVars()), nil
	case suite.PromptScript:
		out, err := r.runTemplate(ctx, spec)
		if err != nil {
			return "", err
		}
		return substitute(out, r.templateVars()), nil
	}
	return "", fmt.Errorf("prompt %q: unknown prompt kind %d", p.Display, p.Kind)
}

// runTemplate runs an executable prompt template in its own directory with the payload on
// stdin and returns its trimmed stdout (empty output is an empty prompt, not an error).
func (r *caseRun) runTemplate(ctx context.Context, spec *suite.EvaluatorSpec) (string, error) {
	p := spec.Prompt
	display := p.Display
	argv := p.Script
	var extraEnv []string
	dir := ""
	if len(argv) == 0 {
		if p.Path == "" {
			return "", errors.New("prompt template has neither a script nor a path")
		}
		var err error
		if argv, extraEnv, err = (jsruntime.Resolver{}).Command(p.Path); err != nil {
			return "", err
		}
		dir = filepath.Dir(p.Path)
	} else {
		extraEnv = sdkEnv(argv)
		if last := argv[len(argv)-1]; filepath.IsAbs(last) {
			dir = filepath.Dir(last)
		}
	}
	if dir == "" && p.Path != "" {
		dir = filepath.Dir(p.Path)
	}
	if dir == "" {
		dir = r.dir()
	}
	if display == "" {
		display = filepath.Base(argv[len(argv)-1])
	}
	config := p.Config
	if config == nil {
		config = spec.Config
	}
	payload, err := r.payload(v4PayloadOpts{config: config, template: true})
	if err != nil {
		return "", fmt.Errorf("prompt template %s: could not build its payload: %w", display, err)
	}
	res, err := r.runProcess(ctx, argv, dir, payload, extraEnv)
	if err != nil {
		return "", fmt.Errorf("prompt template %s: %w", display, err)
	}
	if res.StdoutTruncated {
		return "", fmt.Errorf("prompt template %s printed more than %d MiB (output cut off)", display, proc.DefaultMaxOutput>>20)
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}
