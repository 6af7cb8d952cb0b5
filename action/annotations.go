package action

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentv/action/internal/textfmt"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Level is an annotation's severity.
type Level string

// Annotation levels, in rank order.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelNotice  Level = "notice"
)

var levels = []Level{LevelError, LevelWarning, LevelNotice}

// rank is l's place in levels; an unknown level ranks as a notice.
func (l Level) rank() int {
	if i := slices.Index(levels, l); i >= 0 {
		return i
	}
	return 2
}

// MaxAnnotationsPerLevel is GitHub's per-step cap for workflow-command annotations: 10
// errors, 10 warnings and 10 notices; the rest are silently dropped
// (https://github.com/actions/toolkit/blob/main/docs/problem-matchers.md).
const MaxAnnotationsPerLevel = 10

// Annotation is a message attached to a file and line of the PR's diff.
type Annotation struct {
	Level   Level
	File    string // workspace-relative, forward slashes
	Line    int    // 1-based; 0: the whole file
	EndLine int    // 1-based; 0: same as Line
	Col     int    // 1-based; 0: unknown
	Title   string
	Message string
}

// Annotate writes annotations within the per-step caps (counted across calls): errors first,
// then warnings, then notices, each in the order given. When some do not fit, one notice (its
// slot kept) says how many were left out and that the job summary lists them all. omitted
// counts error annotations the caller did not build, as they would come past the cap. It
// returns how many annotations were left out.
func (c *Commands) Annotate(anns []Annotation, omitted int) (dropped int) {
	sorted := slices.Clone(anns)
	slices.SortStableFunc(sorted, func(a, b Annotation) int { return cmp.Compare(a.Level.rank(), b.Level.rank()) })
	c.mu.Lock()
	defer c.mu.Unlock()
	left := map[Level]int{LevelError: omitted}
	dropped = omitted
	for _, a := range sorted {
		if a.Level.rank() == 2 {
			a.Level = LevelNotice // unknown levels would be plain log lines
		}
		limit := MaxAnnotationsPerLevel
		if a.Level == LevelNotice {
			limit-- // the overflow notice's slot
		}
		if c.emitted[a.Level] >= limit {
			left[a.Level]++
			dropped++
			continue
		}
		c.writeLocked(c.annotation(a))
		c.emitted[a.Level]++
	}
	if dropped > 0 && !c.overflow && c.emitted[LevelNotice] < MaxAnnotationsPerLevel {
		c.overflow = true
		var parts []string
		for _, l := range levels {
			if n := left[l]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, textfmt.Plural(n, string(l), string(l)+"s")))
			}
		}
		c.writeLocked(c.annotation(Annotation{
			Level: LevelNotice,
			Title: "agentv: more annotations in the job summary",
			Message: fmt.Sprintf("%d more %s (%s) not shown: GitHub shows at most %d errors, %d warnings and %d notices per step. The job summary lists every failing case and warning.",
				dropped, textfmt.Plural(dropped, "annotation", "annotations"), strings.Join(parts, ", "), MaxAnnotationsPerLevel, MaxAnnotationsPerLevel, MaxAnnotationsPerLevel),
		}))
		c.emitted[LevelNotice]++
	}
	return dropped
}

// AnnotationOptions say how to map paths and how much model text to show.
type AnnotationOptions struct {
	Workspace string             // GITHUB_WORKSPACE; paths are made relative to it
	WorkDir   string             // directory relative paths in diagnostics and records are relative to
	Details   report.DetailLevel // DetailsNone: scores only, no judge text
}

func (o AnnotationOptions) path(p string) string { return WorkspacePath(o.Workspace, o.WorkDir, p) }

// BuildAnnotations ranks everything worth annotating: configuration errors, errored
// cases, failed cases (lowest score first), then configuration and template warnings, each
// once. Regressed cases come right after the configuration errors when the regressions failed
// the run (gated), else as warnings before the other warnings.
func BuildAnnotations(diags []suite.Diagnostic, recs []results.Record, regs []Regression, gated bool, opts AnnotationOptions) []Annotation {
	var errs, warns []Annotation
	regAnns := fromRegressions(regs, gated, opts)
	if !gated {
		warns = append(warns, regAnns...)
	}
	seen := map[string]bool{}
	// One annotation per warning, whichever case it was reported for: slots are few.
	addWarn := func(a Annotation) {
		k := fmt.Sprintf("%s\x00%d\x00%d\x00%s", a.File, a.Line, a.Col, caseMessage.ReplaceAllString(a.Message, ""))
		if !seen[k] {
			seen[k] = true
			warns = append(warns, a)
		}
	}
	for _, a := range fromDiagnostics(diags, opts) {
		if a.Level == LevelError {
			errs = append(errs, a)
		} else {
			addWarn(a)
		}
	}
	if gated {
		errs = append(errs, regAnns...)
	}
	errs = append(errs, fromRecords(recs, opts)...)
	for _, r := range recs {
		for _, w := range r.Warnings {
			addWarn(Annotation{
				Level: LevelWarning, File: opts.path(w.File), Line: w.Line, Col: w.Col,
				Title: title("agentv warning", w.Kind), Message: fmt.Sprintf("case %q: %s", r.EvalID, w.Message),
			})
		}
	}
	return append(errs, warns...)
}

// caseMessage matches the `case "id": ` prefix that names a warning's case.
var caseMessage = regexp.MustCompile(`^case "(?:[^"\\]|\\.)*": `)

func title(what, kind string) string {
	if kind == "" {
		return what
	}
	return what + ": " + kind
}

// fromDiagnostics turns load and validation diagnostics into annotations, in position order.
func fromDiagnostics(diags []suite.Diagnostic, opts AnnotationOptions) []Annotation {
	ds := slices.Clone(diags)
	for i := range ds {
		ds[i].File = opts.path(ds[i].File)
	}
	suite.SortDiagnostics(ds)
	out := make([]Annotation, 0, len(ds))
	for _, d := range ds {
		a := Annotation{Level: LevelWarning, File: d.File, Line: d.Line, Col: d.Col, Message: d.Message,
			Title: title("agentv warning", d.Kind)}
		if d.IsError() {
			a.Level, a.Title = LevelError, title("agentv error", d.Kind)
		}
		if d.CaseID != "" {
			a.Message = fmt.Sprintf("case %q: %s", d.CaseID, d.Message)
		}
		out = append(out, a)
	}
	return out
}

// maxMisses is how many judge misses a failed case's annotation lists.
const maxMisses = 3

// fromRecords annotates errored cases (in position order) and failed cases (lowest score
// first) at their line in the eval file.
func fromRecords(recs []results.Record, opts AnnotationOptions) []Annotation {
	var errored, failed []results.Record
	for _, r := range recs {
		switch r.Verdict {
		case results.VerdictError:
			errored = append(errored, r)
		case results.VerdictFail:
			failed = append(failed, r)
		}
	}
	byPos := func(a, b results.Record) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	}
	slices.SortStableFunc(errored, byPos)
	slices.SortStableFunc(failed, func(a, b results.Record) int { return cmp.Or(cmp.Compare(a.Score, b.Score), byPos(a, b)) })
	out := make([]Annotation, 0, len(errored)+len(failed))
	for _, r := range errored {
		msg := r.Error
		if msg == "" {
			for _, e := range r.EvaluatorResults {
				if e.Error != "" {
					msg = fmt.Sprintf("evaluator %s: %s", e.Name, e.Error)
					break
				}
			}
		}
		out = append(out, Annotation{
			Level: LevelError, File: opts.path(r.File), Line: r.Line,
			Title: fmt.Sprintf("eval case %s errored", r.EvalID), Message: msg,
		})
	}
	for _, r := range failed {
		out = append(out, Annotation{
			Level: LevelError, File: opts.path(r.File), Line: r.Line,
			Title:   fmt.Sprintf("eval case %s failed: score %.2f", r.EvalID, r.Score),
			Message: failureMessage(r, opts.Details),
		})
	}
	return out
}

func failureMessage(r results.Record, details report.DetailLevel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "score %.3f", r.Score)
	for _, e := range r.EvaluatorResults {
		fmt.Fprintf(&b, "; %s %.3f", e.Name, e.Score)
	}
	if details == report.DetailsNone {
		return b.String()
	}
	if len(r.Misses) > 0 {
		b.WriteString("\nmisses:")
		for i, m := range r.Misses {
			if i == maxMisses {
				fmt.Fprintf(&b, "\n- and %d more", len(r.Misses)-maxMisses)
				break
			}
			b.WriteString("\n- " + m)
		}
	}
	if r.Reasoning != "" {
		b.WriteString("\nreasoning: " + sanitize(r.Reasoning, 600))
	}
	return b.String()
}

// Regression is a case that regressed against the baseline, as its annotation shows it.
type Regression struct {
	ID, File      string
	Line          int
	Before, After float64
	Why           string // what made it a regression (report.TestNote)
}

// fromRegressions annotates each regressed case at its line, in the order given (worst
// first): errors when the regressions failed the run (gated), else warnings.
func fromRegressions(regs []Regression, gated bool, opts AnnotationOptions) []Annotation {
	level := LevelWarning
	if gated {
		level = LevelError
	}
	out := make([]Annotation, 0, len(regs))
	for _, r := range regs {
		msg := fmt.Sprintf("score %.3f → %.3f (%+.3f) against the baseline", r.Before, r.After, r.After-r.Before)
		if r.Why != "" {
			msg += "; " + r.Why
		}
		out = append(out, Annotation{
			Level: level, File: opts.path(r.File), Line: r.Line,
			Title:   fmt.Sprintf("eval case %s regressed: %.2f → %.2f", r.ID, r.Before, r.After),
			Message: msg,
		})
	}
	return out
}
