package suite

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity says whether a diagnostic stops something from running.
type Severity int

const (
	// SeverityWarning is reported but never changes the outcome of a run.
	SeverityWarning Severity = iota
	// SeverityError means a file, case or setting could not be used; the run's outcome is invalid.
	SeverityError
)

func (s Severity) String() string {
	if s == SeverityError {
		return "error"
	}
	return "warning"
}

// Diagnostic is one positioned problem found while loading or validating input.
// The same value feeds the console, Actions annotations and the results file.
type Diagnostic struct {
	File     string   `json:"file,omitempty"` // path as shown to the user (relative when possible)
	Line     int      `json:"line,omitempty"` // 1-based; 0 when unknown
	Col      int      `json:"col,omitempty"`  // 1-based; 0 when unknown
	Severity Severity `json:"-"`
	Kind     string   `json:"kind,omitempty"` // short machine-readable class, e.g. "unknown-key", "template"
	CaseID   string   `json:"case,omitempty"` // eval case the problem belongs to, if any
	Message  string   `json:"message"`
	// AlsoCases are the other cases a warning applies to: one reported once for a file (a
	// suite-level input file that is missing) still belongs on every case it affects.
	AlsoCases []string `json:"-"`
}

// Error formats the diagnostic as file:line:col: message.
func (d Diagnostic) Error() string {
	pos := d.File
	if d.Line > 0 {
		pos += fmt.Sprintf(":%d", d.Line)
		if d.Col > 0 {
			pos += fmt.Sprintf(":%d", d.Col)
		}
	}
	if pos == "" {
		return d.Message
	}
	return pos + ": " + d.Message
}

// IsError reports whether d is an error rather than a warning.
func (d Diagnostic) IsError() bool { return d.Severity == SeverityError }

// SortDiagnostics orders diagnostics by file, line and column, keeping the order of equal positions.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	return slices.ContainsFunc(ds, Diagnostic.IsError)
}
