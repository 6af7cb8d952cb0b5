package suite

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v4"
)

// TemplateVarPattern matches a `{{ variable }}` placeholder (spaces inside the braces allowed).
var TemplateVarPattern = regexp.MustCompile(`{{\s*([a-zA-Z0-9_]+)\s*}}`)

// TemplateVariables are the names a text template may use; others are left as written, with a warning.
var TemplateVariables = []string{"candidate_answer", "expected_messages", "question", "expected_outcome",
	"reference_answer", "input_messages", "output_messages", "actual_output", "expected_output", "input"}

// templateRules are a dialect's template variables: those known, those of which a template
// needs one (or there is nothing to grade against), and how its messages name them.
type templateRules struct {
	known, required []string
	noun, needs     string
}

var (
	templates25 = templateRules{
		known:    TemplateVariables,
		required: []string{"candidate_answer", "expected_messages", "actual_output", "expected_output"},
		noun:     "evaluator",
		needs: "include {{ candidate_answer }} or {{ expected_messages }} (newer names: {{ actual_output }}, " +
			"{{ expected_output }}). Without these, there is nothing to evaluate against",
	}
	templates4 = templateRules{
		known:    V4TemplateVariables,
		required: []string{"output", "expected_output"},
		noun:     "grader",
		needs:    "include {{ output }} or {{ expected_output }}. Without these, there is nothing to grade against",
	}
)

// templateVar is one placeholder found in a template.
type templateVar struct {
	name string
	off  int // byte offset of "{{" in the template
}

func scanTemplate(text string) []templateVar {
	var out []templateVar
	for _, m := range TemplateVarPattern.FindAllStringSubmatchIndex(text, -1) {
		out = append(out, templateVar{name: text[m[2]:m[3]], off: m[0]})
	}
	return out
}

// problems returns whether text misses every required variable, and the unknown ones it uses
// (each once, in order, with the first one's offset).
func (r templateRules) problems(text string) (missing bool, unknown []string, firstOff int) {
	missing = true
	firstOff = -1
	for _, v := range scanTemplate(text) {
		if slices.Contains(r.required, v.name) {
			missing = false
		}
		if !slices.Contains(r.known, v.name) && !slices.Contains(unknown, v.name) {
			if firstOff < 0 {
				firstOff = v.off
			}
			unknown = append(unknown, v.name)
		}
	}
	return missing, unknown, firstOff
}

func (r templateRules) missingMessage(source string) string {
	return fmt.Sprintf("Custom %s template at %s is missing required fields: %s; the template is still used", r.noun, source, r.needs)
}

func (r templateRules) unknownMessage(source string, unknown []string) string {
	return fmt.Sprintf("Custom %s template at %s uses unknown variables %s (left as written); valid variables: %s",
		r.noun, source, braces(unknown), braces(r.known))
}

func braces(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = "{{ " + n + " }}"
	}
	return strings.Join(parts, ", ")
}

// textPos returns the 1-based line and rune column of byte offset off in text.
func textPos(text string, off int) (int, int) {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	lineStart := strings.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCountInString(before[lineStart:]) + 1
}

// promptFile reads a text template file, checked once per load; warnings point into the file.
func (l *Reader) promptFile(n *yaml.Node, abs, display string, el *EvalList, r templateRules) *PromptSpec {
	text, err := l.readText(abs)
	if err != nil {
		l.evError(el, n, "could not read prompt file %q: %s", display, ErrText(err))
		return nil
	}
	if !l.templates[abs] {
		l.templates[abs] = true
		missing, unknown, off := r.problems(text)
		file := DisplayPath(abs, l.Cwd)
		if missing {
			el.add(Diagnostic{File: file, Line: 1, Col: 1, Severity: SeverityWarning, Kind: KindTemplate, Message: r.missingMessage(file)})
		}
		if len(unknown) > 0 {
			line, col := textPos(text, off)
			el.add(Diagnostic{File: file, Line: line, Col: col, Severity: SeverityWarning, Kind: KindTemplate,
				Message: r.unknownMessage(file, unknown)})
		}
	}
	return &PromptSpec{Kind: PromptFile, Text: text, Path: abs, Display: display}
}

// validateInlineTemplate checks an inline prompt; warnings point into the eval file.
func (l *Reader) validateInlineTemplate(text string, vn, kn *yaml.Node, spec *EvaluatorSpec, el *EvalList) {
	missing, unknown, off := templates25.problems(text)
	if !missing && len(unknown) == 0 {
		return
	}
	file, kline := l.Where(kn.Line) // an assertion template's prompt is in that file
	source := fmt.Sprintf("%s:%d (inline prompt", file, kline)
	if spec.Name != "" {
		source += fmt.Sprintf(" of evaluator %q", spec.Name)
	}
	source += ")"
	if missing {
		el.add(Diagnostic{File: file, Line: kline, Col: kn.Column, Severity: SeverityWarning, Kind: KindTemplate,
			Message: templates25.missingMessage(source)})
	}
	if len(unknown) > 0 {
		line, col := kline, kn.Column
		if file == l.file {
			line, col = l.inlinePos(vn, text, off)
		}
		el.add(Diagnostic{File: file, Line: line, Col: col, Severity: SeverityWarning, Kind: KindTemplate,
			Message: templates25.unknownMessage(source, unknown)})
	}
}

// inlinePos maps a byte offset of a scalar's value to its source position: exact for literal
// blocks (`|`) and one-line scalars, else the scalar's start.
func (l *Reader) inlinePos(n *yaml.Node, text string, off int) (int, int) {
	tl, tc := textPos(text, off)
	switch {
	case n.Style&yaml.LiteralStyle != 0 && l.Src != nil:
		indent := blockIndent(l.Src, n.Line+1)
		if indent < 0 {
			break
		}
		return n.Line + tl, indent + tc
	case n.Style&yaml.FoldedStyle == 0 && tl == 1 && !strings.Contains(text, "\n"):
		col := n.Column + tc - 1
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			col++
		}
		return n.Line, col
	}
	return n.Line, n.Column
}

// blockIndent returns the indentation of the first non-blank line at or after line (1-based).
func blockIndent(src []byte, line int) int {
	for i := 1; len(src) > 0; i++ {
		var cur []byte
		cur, src, _ = bytes.Cut(src, []byte("\n"))
		if i < line {
			continue
		}
		trimmed := bytes.TrimLeft(cur, " ")
		if len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		return len(cur) - len(trimmed)
	}
	return -1
}
