package actiontest

import (
	"strings"
	"unicode"
)

// WorkflowCommand is a line of a step's output that a GitHub Actions runner would act on.
type WorkflowCommand struct {
	Name string // add-mask, error, stop-commands, …
	Line string // the whole line as written
}

// WorkflowCommands reads a step's output as the runner does and returns the lines it would
// take for workflow commands: lines split at LF, CR and CR LF; a line whose text, after
// leading whitespace, starts with "::" (::name props::data), and a line holding "##[" anywhere
// (the legacy ##[name props]data form). Between ::stop-commands::TOKEN and ::TOKEN:: no line
// is a command, except the resume line itself. The runner acts only on the names it knows;
// this returns every name, so a test can refuse anything it did not mean to write.
func WorkflowCommands(output string) []WorkflowCommand {
	var cmds []WorkflowCommand
	stopToken := ""
	lines := strings.FieldsFunc(output, func(r rune) bool { return r == '\n' || r == '\r' })
	for _, line := range lines {
		name, ok := commandName(line)
		if !ok {
			continue
		}
		if stopToken != "" {
			if name == stopToken {
				cmds = append(cmds, WorkflowCommand{Name: name, Line: line})
				stopToken = ""
			}
			continue
		}
		cmds = append(cmds, WorkflowCommand{Name: name, Line: line})
		if name == "stop-commands" {
			t := strings.TrimLeftFunc(line, unicode.IsSpace)
			if _, data, ok := strings.Cut(t[2:], "::"); ok {
				stopToken = data
			}
		}
	}
	return cmds
}

// commandName returns the command a line would be, in either form.
func commandName(line string) (string, bool) {
	if t := strings.TrimLeftFunc(line, unicode.IsSpace); strings.HasPrefix(t, "::") {
		info, _, ok := strings.Cut(t[2:], "::")
		if ok && info != "" {
			name, _, _ := strings.Cut(info, " ")
			return name, true
		}
	}
	if i := strings.Index(line, "##["); i >= 0 {
		info, _, ok := strings.Cut(line[i+3:], "]")
		if ok && info != "" {
			name, _, _ := strings.Cut(info, " ")
			return name, true
		}
	}
	return "", false
}
