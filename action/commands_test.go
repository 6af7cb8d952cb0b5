package action

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/action/actiontest"
	"github.com/agentv/action/internal/golden"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestMaskEverySecretWhenAdded(t *testing.T) {
	t.Parallel()
	var r redact.Redactor
	r.Add("sk-known-before")
	var buf bytes.Buffer
	c := NewCommands(&buf, &r)
	if got, want := buf.String(), "::add-mask::sk-known-before\n"; got != want {
		t.Errorf("after NewCommands: %q, want %q", got, want)
	}
	buf.Reset()
	r.Add("tok-50%-off\r\nsecond-line") // added later: masked at once, whole and per line
	want := []string{
		"::add-mask::tok-50%25-off%0D%0Asecond-line",
		"::add-mask::tok-50%25-off",
		"::add-mask::second-line",
	}
	if diff := cmp.Diff(want, lines(buf.String())); diff != "" {
		t.Errorf("masks (-want +got):\n%s", diff)
	}
	buf.Reset()
	c.Annotate([]Annotation{{Level: LevelError, Title: "bad sk-known-before", Message: "echoed tok-50%-off\r\nsecond-line back"}}, 0)
	if got := buf.String(); strings.Contains(got, "sk-known-before") || strings.Contains(got, "second-line") || !strings.Contains(got, redact.Mask) {
		t.Errorf("annotation not redacted: %q", got)
	}
}

func TestAnnotationEscaping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a    Annotation
		want string
	}{
		{
			name: "properties and message",
			a: Annotation{Level: LevelError, File: "evals/a,b:c.yaml", Line: 12, Col: 5,
				Title: "judge, failed: x", Message: "line one\nline two 100%\r"},
			want: "::error col=5,file=evals/a%2Cb%3Ac.yaml,line=12,title=judge%2C failed%3A x::line one%0Aline two 100%25",
		},
		{
			name: "forged command in message",
			a:    Annotation{Level: LevelWarning, Message: "x\n::add-mask::nothing\n::error::fake"},
			want: "::warning::x%0A::add-mask::nothing%0A::error::fake",
		},
		{
			name: "ansi, NUL and newline in title",
			a:    Annotation{Level: LevelNotice, File: "f.yaml", Title: "a\x1b[31mred\x1b[0m\nnext", Message: "nul\x00here \x1b]8;;http://x\x07link\x1b]8;;\x07"},
			want: "::notice file=f.yaml,title=ared next::nulhere link",
		},
		{
			name: "every line break is escaped, NEL and bidi overrides go",
			a:    Annotation{Level: LevelWarning, Message: "a\r::add-mask::b\u2028::error::c\u2029d\u0085e\u202ef"},
			want: "::warning::a%0A::add-mask::b%0A::error::c%0Adef",
		},
		{
			name: "end line",
			a:    Annotation{Level: LevelError, File: "f.yaml", Line: 3, EndLine: 4, Message: "m"},
			want: "::error endLine=4,file=f.yaml,line=3::m",
		},
		{
			name: "line without file is dropped",
			a:    Annotation{Level: LevelError, Line: 3, Message: "m"},
			want: "::error::m",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			NewCommands(&buf, nil).Annotate([]Annotation{tt.a}, 0)
			if got := strings.TrimSuffix(buf.String(), "\n"); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestAnnotationLength(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	NewCommands(&buf, nil).Annotate([]Annotation{{Level: LevelError, Title: strings.Repeat("t", 1000), Message: strings.Repeat("m", 200_000)}}, 0)
	if n := buf.Len(); n > maxTitle+maxMessage+100 {
		t.Errorf("annotation is %d bytes, want it cut", n)
	}
}

func TestAnnotationCaps(t *testing.T) {
	t.Parallel()
	var anns []Annotation
	add := func(l Level, n int) {
		for i := range n {
			anns = append(anns, Annotation{Level: l, File: "f.yaml", Line: i + 1, Message: fmt.Sprintf("%s %d", l, i+1)})
		}
	}
	add(LevelNotice, 3)
	add(LevelWarning, 12)
	add(LevelError, 15)
	var buf bytes.Buffer
	c := NewCommands(&buf, nil)
	if dropped := c.Annotate(anns, 0); dropped != 7 {
		t.Errorf("dropped = %d, want 7", dropped)
	}
	got := lines(buf.String())
	count := map[string]int{}
	for _, l := range got {
		count[strings.Fields(strings.TrimPrefix(l, "::"))[0]]++
	}
	want := map[string]int{"error": 10, "warning": 10, "notice": 4}
	if diff := cmp.Diff(want, count); diff != "" {
		t.Errorf("annotation counts (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(got[0], "::error file=f.yaml,line=1::error 1") || !strings.HasPrefix(got[10], "::warning") {
		t.Errorf("not ranked errors first: %q, %q", got[0], got[10])
	}
	last := got[len(got)-1]
	if !strings.Contains(last, "7 more annotations (5 errors, 2 warnings) not shown") {
		t.Errorf("overflow notice = %q", last)
	}

	// Later calls share the step's budget and add no second overflow notice.
	buf.Reset()
	if dropped := c.Annotate([]Annotation{{Level: LevelError, Message: "late"}, {Level: LevelNotice, Message: "n"}}, 0); dropped != 1 {
		t.Errorf("second call dropped %d, want 1", dropped)
	}
	if diff := cmp.Diff([]string{"::notice::n"}, lines(buf.String())); diff != "" {
		t.Errorf("second call (-want +got):\n%s", diff)
	}
}

func TestAnnotationNoticesKeepOverflowSlot(t *testing.T) {
	t.Parallel()
	var anns []Annotation
	for i := range 12 {
		anns = append(anns, Annotation{Level: LevelNotice, Message: fmt.Sprint(i)})
	}
	var buf bytes.Buffer
	NewCommands(&buf, nil).Annotate(anns, 0)
	got := lines(buf.String())
	if len(got) != MaxAnnotationsPerLevel || !strings.Contains(got[9], "3 more annotations (3 notices)") {
		t.Errorf("got %d lines, last %q", len(got), got[len(got)-1])
	}
}

func TestGroups(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	c := NewCommands(&buf, nil)
	c.Group("Run evals\n::error::x")
	c.EndGroup()
	want := []string{"::group::Run evals%0A::error::x", "::endgroup::"}
	if diff := cmp.Diff(want, lines(buf.String())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestCommandsWriteErrorDoesNotPanic(t *testing.T) {
	t.Parallel()
	c := NewCommands(failWriter{}, nil)
	c.Group("x")
	c.AddMask("secret-value")
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "stdout closed") {
		t.Errorf("Err = %v", err)
	}
}

func TestBuildAnnotationsGolden(t *testing.T) {
	t.Parallel()
	diags := []suite.Diagnostic{
		{File: "/ws/evals/b.yaml", Line: 4, Col: 3, Severity: suite.SeverityWarning, Kind: "unknown-key", Message: `unknown key "jduge"`},
		{File: "evals/a.yaml", Line: 9, Col: 1, Severity: suite.SeverityError, Kind: "duplicate-id", CaseID: "greet", Message: "duplicate id, first at line 2"},
		{File: "evals/tmpl.ts", Severity: suite.SeverityWarning, Kind: "template", Message: "template prints nothing for {{ question }}"},
	}
	tmplWarn := suite.Diagnostic{File: "evals/prompt.md", Line: 2, Kind: "template", Message: "unknown placeholder {{ answr }}"}
	recs := []results.Record{
		{EvalID: "ok", File: "evals/a.yaml", Line: 2, Verdict: results.VerdictPass, Score: 1},
		{EvalID: "meh", File: "evals/a.yaml", Line: 20, Verdict: results.VerdictFail, Score: 0.6,
			Misses: []string{"no greeting", "@org/team was mentioned", "a", "b"}, Reasoning: "partly right\x1b[1m",
			EvaluatorResults: []results.EvaluatorResult{{Name: "judge", Score: 0.6}}, Warnings: []suite.Diagnostic{tmplWarn}},
		{EvalID: "bad", File: "evals/a.yaml", Line: 30, Verdict: results.VerdictFail, Score: 0.1, Warnings: []suite.Diagnostic{tmplWarn}},
		{EvalID: "boom", File: "evals/b.yaml", Line: 5, Verdict: results.VerdictError, Error: "target timed out after 120s (3 attempts)"},
		{EvalID: "judge-broke", File: "evals/b.yaml", Line: 2, Verdict: results.VerdictError,
			EvaluatorResults: []results.EvaluatorResult{{Name: "code", Error: "exit status 1: TypeError"}}},
	}
	for _, d := range []report.DetailLevel{report.DetailsFailures, report.DetailsNone} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			anns := BuildAnnotations(diags, recs, nil, false, AnnotationOptions{Workspace: "/ws", WorkDir: "/ws", Details: d})
			var buf bytes.Buffer
			NewCommands(&buf, nil).Annotate(anns, 0)
			golden.Check(t, filepath.Join("testdata", "annotations-"+d.String()+".golden"), buf.String())
		})
	}
}

func TestWorkspacePath(t *testing.T) {
	t.Parallel()
	tests := []struct{ workspace, wd, p, want string }{
		{"/ws", "/ws", "evals/a.yaml", "evals/a.yaml"},
		{"/ws", "/ws/sub", "evals/a.yaml", "sub/evals/a.yaml"},
		{"/ws", "", "evals/a.yaml", "evals/a.yaml"},
		{"/ws", "/ws", "/ws/x/../y.yaml", "y.yaml"},
		{"/ws", "/ws", "/tmp/out.xml", "/tmp/out.xml"},
		{"/ws", "/ws", "../outside.yaml", "/outside.yaml"},
		{"", "", "./evals/a.yaml", "evals/a.yaml"},
		{"/ws", "/ws", "", ""},
		{"/ws", "/ws", "..foo/a", "..foo/a"},
	}
	for _, tt := range tests {
		t.Run(tt.p, func(t *testing.T) {
			t.Parallel()
			if got := WorkspacePath(tt.workspace, tt.wd, tt.p); got != tt.want {
				t.Errorf("WorkspacePath(%q, %q, %q) = %q, want %q", tt.workspace, tt.wd, tt.p, got, tt.want)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	var r redact.Redactor
	var buf bytes.Buffer
	c := NewCommands(&buf, &r)
	r.Add("sk-secret-1234")
	buf.Reset()
	c.Message(LevelError, "agentv invalid run", "bad input: sk-secret-1234\n::add-mask::e 50%")
	c.Message(LevelWarning, "", "\x1b[31mred\x1b[0m")
	c.Message(Level("bogus"), "t:1,2", "n")
	want := []string{
		"::error title=agentv invalid run::bad input: ***%0A::add-mask::e 50%25",
		"::warning::red",
		"::notice title=t%3A1%2C2::n",
	}
	if diff := cmp.Diff(want, lines(buf.String())); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestVerbatim(t *testing.T) {
	t.Parallel()
	var r redact.Redactor
	var buf bytes.Buffer
	c := NewCommands(&buf, &r)
	r.Add("sk-secret-1234")
	buf.Reset()
	body := "prompt line\n::add-mask::e\r::error::forged\u2028##[set-output name=x]1\n  ::endgroup::\nkey sk-secret-1234\x1b[2J"
	c.Verbatim("agentv: cli target \"x\": running\n::add-mask::h", body)
	c.Verbatim("agentv: one line ##[add-mask]h", "")
	out := buf.String()
	cmds := actiontest.WorkflowCommands(out)
	if len(cmds) != 2 || cmds[0].Name != "stop-commands" {
		t.Fatalf("commands the runner would run: %+v\n%s", cmds, out)
	}
	token := strings.TrimPrefix(cmds[0].Line, "::stop-commands::")
	if len(token) < 32 || cmds[1].Line != "::"+token+"::" {
		t.Errorf("block not closed by its token: %+v", cmds)
	}
	ls := lines(out)
	wantLines := []string{
		`agentv: cli target "x": running ::add-mask::h`,
		"::stop-commands::" + token,
		"prompt line", "::add-mask::e", "::error::forged", "##[set-output name=x]1", "  ::endgroup::", "key ***",
		"::" + token + "::",
		`agentv: one line ##\[add-mask]h`,
	}
	if diff := cmp.Diff(wantLines, ls); diff != "" {
		t.Errorf("verbatim output (-want +got):\n%s", diff)
	}
	// A fresh token for every block.
	buf.Reset()
	c.Verbatim("h", "x")
	if strings.Contains(buf.String(), token) {
		t.Error("token reused")
	}
}

func TestWorkflowCommandsReadsLikeTheRunner(t *testing.T) {
	t.Parallel()
	log := "plain\n  ::warning::w\r::add-mask::m\nsay ##[error]legacy\n::stop-commands::tok\n::error::ignored\n##[error]ignored\n::tok::\n::notice::n\n"
	var names []string
	for _, c := range actiontest.WorkflowCommands(log) {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"warning", "add-mask", "error", "stop-commands", "tok", "notice"}, names); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}

// Each regressed case is annotated at its line with its score before → after: errors first
// among the case annotations when the regressions failed the run, warnings before the other
// warnings when they only report. Hostile ids cannot forge commands, and the cap holds.
func TestRegressionAnnotations(t *testing.T) {
	t.Parallel()
	regs := []Regression{
		{ID: "c2", File: "/ws/evals/s.yaml", Line: 8, Before: 0.9, After: 0.4, Why: "one run each (no trials to test)"},
		{ID: "evil\n::set-output name=x::1", File: "evals/s.yaml", Line: 12, Before: 1, After: 0.5, Why: "p = 0.00397 ≤ 0.01 (5 + 5 trials)"},
	}
	failed := []results.Record{{EvalID: "low", File: "evals/s.yaml", Line: 3, Verdict: results.VerdictFail, Score: 0.2}}
	warn := []suite.Diagnostic{{File: "evals/s.yaml", Line: 1, Severity: suite.SeverityWarning, Kind: "unknown-key", Message: "unknown key"}}
	many := make([]Regression, 12)
	for i := range many {
		many[i] = Regression{ID: fmt.Sprintf("r%d", i), File: "evals/s.yaml", Line: i + 1, Before: 1, After: 0}
	}
	tests := []struct {
		name  string
		regs  []Regression
		gated bool
		want  []string
	}{
		{"gated", regs, true, []string{
			"::error file=evals/s.yaml,line=8,title=eval case c2 regressed%3A 0.90 → 0.40::score 0.900 → 0.400 (-0.500) against the baseline; one run each (no trials to test)",
			"::error file=evals/s.yaml,line=12,title=eval case evil %3A%3Aset-output name=x%3A%3A1 regressed%3A 1.00 → 0.50::score 1.000 → 0.500 (-0.500) against the baseline; p = 0.00397 ≤ 0.01 (5 + 5 trials)",
			"::error file=evals/s.yaml,line=3,title=eval case low failed%3A score 0.20::score 0.200",
			"::warning file=evals/s.yaml,line=1,title=agentv warning%3A unknown-key::unknown key",
		}},
		{"reported", regs[:1], false, []string{
			"::error file=evals/s.yaml,line=3,title=eval case low failed%3A score 0.20::score 0.200",
			"::warning file=evals/s.yaml,line=8,title=eval case c2 regressed%3A 0.90 → 0.40::score 0.900 → 0.400 (-0.500) against the baseline; one run each (no trials to test)",
			"::warning file=evals/s.yaml,line=1,title=agentv warning%3A unknown-key::unknown key",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			NewCommands(&buf, nil).Annotate(BuildAnnotations(warn, failed, tt.regs, tt.gated, AnnotationOptions{Workspace: "/ws", WorkDir: "/ws"}), 0)
			var got []string
			for _, c := range actiontest.WorkflowCommands(buf.String()) {
				got = append(got, c.Line)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s\n%s", diff, buf.String())
			}
		})
	}
	t.Run("cap", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		NewCommands(&buf, nil).Annotate(BuildAnnotations(nil, failed, many, true, AnnotationOptions{}), 0)
		out := buf.String()
		if n := strings.Count(out, "::error "); n != MaxAnnotationsPerLevel || !strings.Contains(out, "title=eval case r9 regressed%3A") ||
			!strings.Contains(out, "3 more annotations (3 errors) not shown") {
			t.Errorf("want the first 10 regressions and a notice for the rest:\n%s", out)
		}
	})
}
