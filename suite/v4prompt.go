package suite

import (
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// V4TemplateVariables are the names a 4.x grader template may use; others stay as written.
var V4TemplateVariables = []string{"expected_output", "criteria", "metadata", "metadata_json", "rubrics",
	"rubrics_json", "input", "output", "file_changes", "tool_calls"}

// V4HasTemplateVariables reports whether text uses a 4.x template variable: an inline 4.x
// prompt without one is criteria text for the default grader prompt, not a template.
func V4HasTemplateVariables(text string) bool {
	return slices.ContainsFunc(scanTemplate(text), func(v templateVar) bool {
		return slices.Contains(V4TemplateVariables, v.name)
	})
}

// v4PromptFilePrefix marks a 4.x prompt value as a file.
const v4PromptFilePrefix = "file://"

// parseV4Prompt resolves a 4.x llm-grader `prompt` string: `file://path` is a template file
// (missing: an error). A bare one-line value naming an existing file is read as that file,
// with a warning, since AgentV 4.x would send the path itself as criteria text; anything else
// is inline text (a template when it uses a 4.x variable, else criteria).
func (l *Reader) parseV4Prompt(n *yaml.Node, el *EvalList) *PromptSpec {
	v := n.Value
	t := strings.TrimSpace(v)
	if ref, ok := strings.CutPrefix(t, v4PromptFilePrefix); ok {
		r := l.Resolve(ref, false)
		if r.Abs == "" {
			l.evError(el, n, "prompt file %q not found (tried: %s)", ref, l.TriedList(r))
			return nil
		}
		return l.promptFile(n, r.Abs, ref, el, templates4)
	}
	if abs := l.bareFile(t); abs != "" {
		l.evWarn(el, n, KindTemplate, "prompt %q is read as the file it names; AgentV 4.x reads a bare prompt as inline text (criteria %q): write %q to be read the same by both",
			t, t, v4PromptFilePrefix+t)
		return l.promptFile(n, abs, t, el, templates4)
	}
	return &PromptSpec{Kind: PromptInline, Text: v, Display: v}
}

// bareFile returns the absolute path of the file that a one-line prompt value t (trimmed,
// without file://) names, or "".
func (l *Reader) bareFile(t string) string {
	if strings.ContainsAny(t, "\n\r") || !looksLikePath(t) {
		return ""
	}
	return l.Resolve(t, false).Abs
}
