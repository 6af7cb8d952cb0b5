package evaluators

import (
	"cmp"
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

// templateVars returns the lookup for `{{ }}` substitution, with AgentV 2.5's values.
func (r *caseRun) templateVars() func(name string) (string, bool) {
	in, c := r.in, r.in.Case
	return func(name string) (string, bool) {
		switch name {
		case "candidate_answer", "actual_output":
			return strings.TrimSpace(in.Candidate), true
		case "question":
			return r.question(), true
		case "expected_outcome":
			return strings.TrimSpace(c.ExpectedOutcome), true
		case "reference_answer":
			return strings.TrimSpace(c.ReferenceAnswer), true
		case "expected_messages", "expected_output", "input_messages", "input", "output_messages":
			if err := r.data.messages(); err != nil {
				// Unrenderable data is a loader bug; show it in the prompt rather than fail.
				return "(unavailable: " + err.Error() + ")", true
			}
			switch name {
			case "expected_messages", "expected_output":
				return string(jsonx.Indent(r.data.expected)), true
			case "input_messages", "input":
				return string(jsonx.Indent(r.data.input)), true
			}
			if r.data.output == nil {
				return "[]", true
			}
			return string(jsonx.Indent(r.data.output)), true
		}
		return "", false
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

// substitute replaces the `{{ name }}` placeholders whose name vars knows; unknown names stay
// as written. Inserted values are not scanned again.
func substitute(tmpl string, vars func(string) (string, bool)) string {
	if !strings.Contains(tmpl, "{{") {
		return tmpl
	}
	return suite.TemplateVarPattern.ReplaceAllStringFunc(tmpl, func(m string) string {
		if v, ok := vars(strings.Trim(m, "{} \t\n\f\r")); ok {
			return v
		}
		return m
	})
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
	argv, dir := p.Script, ""
	var extraEnv []string
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
	dir, display := cmp.Or(dir, r.dir()), cmp.Or(p.Display, filepath.Base(argv[len(argv)-1]))
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
