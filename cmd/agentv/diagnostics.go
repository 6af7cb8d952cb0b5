package main

import (
	"fmt"
	"io"

	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/suite"
)

// ANSI colours for diagnostics on a terminal (template warnings are yellow).
const (
	ansiYellow = "\x1b[33m"
	ansiRed    = "\x1b[31m"
	ansiReset  = "\x1b[0m"
)

// printDiagnostics prints every diagnostic sorted by position, errors in red and
// warnings in yellow on a terminal. Each is one line: file names and messages may carry
// line breaks and workflow commands (logtext.Line).
func printDiagnostics(w io.Writer, ds []suite.Diagnostic, color bool) {
	ds = append([]suite.Diagnostic(nil), ds...)
	suite.SortDiagnostics(ds)
	for _, d := range ds {
		label := d.Severity.String()
		if color {
			c := ansiYellow
			if d.IsError() {
				c = ansiRed
			}
			fmt.Fprintf(w, "%s%s: %s%s\n", c, label, logtext.Line(d.Error()), ansiReset)
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", label, logtext.Line(d.Error()))
	}
}
