package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/google/go-cmp/cmp"
)

// Progress writes a progress line (progress) for the tests and the example.
func Progress(w io.Writer, rec *results.Record, done, total int, withTarget bool) {
	progress(w, rec, done, total, withTarget, "")
}

func TestProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		rec         *results.Record
		done, total int
		want        string
	}{
		{"pass", &results.Record{EvalID: "case-3", Dataset: "smoke", Score: 0.95, Verdict: results.VerdictPass, DurationMS: 1200}, 12, 40,
			"[12/40] PASS 0.950 smoke/case-3 (1.2s)\n"},
		{"fail without dataset", &results.Record{EvalID: "c", Score: 0.1, Verdict: results.VerdictFail, DurationMS: 80}, 1, 2,
			"[1/2] FAIL 0.100 c (80ms)\n"},
		{"fail with its first miss", &results.Record{EvalID: "c", Score: 0.4, Verdict: results.VerdictFail, Misses: []string{"no\nrefund window", "x"}}, 1, 2,
			"[1/2] FAIL 0.400 c (0ms): no refund window\n"},
		{"fail with the lowest evaluator's reasoning", &results.Record{EvalID: "c", Score: 0.5, Verdict: results.VerdictFail,
			EvaluatorResults: []results.EvaluatorResult{{Name: "ok", Score: 1, Reasoning: "fine"}, {Name: "tone", Score: 0, Reasoning: "rude"}}}, 2, 2,
			"[2/2] FAIL 0.500 c (0ms): tone: rude\n"},
		{"fail with a miss of the lowest evaluator", &results.Record{EvalID: "c", Score: 0.5, Verdict: results.VerdictFail,
			EvaluatorResults: []results.EvaluatorResult{{Name: "facts", Score: 0.2, Misses: []string{"wrong year"}, Reasoning: "r"}}}, 2, 2,
			"[2/2] FAIL 0.500 c (0ms): facts: wrong year\n"},
		{"pass shows no reason", &results.Record{EvalID: "c", Score: 0.9, Verdict: results.VerdictPass, Misses: []string{"minor"}}, 1, 2,
			"[1/2] PASS 0.900 c (0ms)\n"},
		{"error with message", &results.Record{EvalID: "c", Dataset: "d", Verdict: results.VerdictError, Error: "timed out\nafter 120s", DurationMS: 120000}, 2, 2,
			"[2/2] ERROR 0.000 d/c (2m00s): timed out after 120s\n"},
		{"error field wins over verdict", &results.Record{EvalID: "c", Verdict: results.VerdictPass, Error: "boom"}, 1, 1,
			"[1/1] ERROR 0.000 c (0ms): boom\n"},
		{"unknown total", &results.Record{EvalID: "c", Score: 1, Verdict: results.VerdictPass}, 7, 0,
			"[7/?] PASS 1.000 c (0ms)\n"},
		{"hostile id", &results.Record{EvalID: "a\x1b[2Jb\nc", Score: 1, Verdict: results.VerdictPass}, 1, 1,
			"[1/1] PASS 1.000 ab c (0ms)\n"},
		{"nil record", nil, 1, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			Progress(&b, tt.rec, tt.done, tt.total, false)
			if b.String() != tt.want {
				t.Errorf("Progress = %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// TestProgressTarget checks that a run on several targets names each line's target (one id
// has a record per target) and a run on one target does not.
func TestProgressTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		rec        *results.Record
		withTarget bool
		want       string
	}{
		{"one target", &results.Record{EvalID: "case-1", Target: "gpt", Score: 1, Verdict: results.VerdictPass}, false,
			"[1/2] PASS 1.000 case-1 (0ms)\n"},
		{"several targets", &results.Record{EvalID: "case-1", Dataset: "d", Target: "gpt", Score: 1, Verdict: results.VerdictPass}, true,
			"[1/2] PASS 1.000 d/case-1 [gpt] (0ms)\n"},
		{"several targets, failed", &results.Record{EvalID: "case-1", Target: "claude", Score: 0.2, Verdict: results.VerdictFail, Misses: []string{"no"}}, true,
			"[1/2] FAIL 0.200 case-1 [claude] (0ms): no\n"},
		{"hostile target", &results.Record{EvalID: "c", Target: "a\nb\x1b[2J", Score: 1, Verdict: results.VerdictPass}, true,
			"[1/2] PASS 1.000 c [a b] (0ms)\n"},
		{"no target recorded", &results.Record{EvalID: "c", Verdict: results.VerdictError, Error: "unknown target"}, true,
			"[1/2] ERROR 0.000 c (0ms): unknown target\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			Progress(&b, tt.rec, 1, 2, tt.withTarget)
			if b.String() != tt.want {
				t.Errorf("Progress = %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestConsoleRankingIsStable(t *testing.T) {
	t.Parallel()
	var recs []*results.Record
	for i, s := range []float64{0.5, 0.9, 0.5, 0.9, 0.1, 0.5} {
		recs = append(recs, &results.Record{EvalID: string(rune('a' + i)), File: "f.yaml", Line: i + 1, Score: s, Verdict: results.VerdictPass})
	}
	top, bottom := ranked((&Run{Records: recs}).sortedCases())
	ids := func(rs []*Case) string {
		var s string
		for _, r := range rs {
			s += r.EvalID
		}
		return s
	}
	if got := ids(top); got != "bda" {
		t.Errorf("top = %s, want bda (ties keep file order)", got)
	}
	if got := ids(bottom); got != "eac" {
		t.Errorf("bottom = %s, want eac", got)
	}
}

func TestConsoleColorOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	run := fixtureRun(t)
	var plain, color bytes.Buffer
	Console(&plain, run, false)
	Console(&color, run, true)
	if strings.Contains(plain.String(), "\x1b") {
		t.Error("plain console output has escape sequences")
	}
	if !strings.Contains(color.String(), ansiRed+ansiBold+"Outcome: ERROR") {
		t.Error("colored console output does not color the outcome")
	}
	// Without color, the two differ only by styles.
	stripped := logtext.Block(color.String())
	if stripped != plain.String() {
		t.Error("colored output differs from plain output beyond styles")
	}
}

func TestConsoleSingleCaseHasNoStdDev(t *testing.T) {
	t.Parallel()
	recs := []*results.Record{{EvalID: "only", Score: 1, Verdict: results.VerdictPass}}
	counts := tally(recs)
	var b bytes.Buffer
	Console(&b, &Run{Records: recs, Counts: counts, Decision: gate.Decide(counts, gate.Defaults())}, false)
	out := b.String()
	if strings.Contains(out, "Std deviation") || strings.Contains(out, "ERRORS") {
		t.Errorf("unexpected section:\n%s", out)
	}
	if !strings.Contains(out, "Outcome: PASS — 1 of 1 cases passed") {
		t.Errorf("outcome line missing:\n%s", out)
	}
}

func TestProgressUnknownTotal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rec   *results.Record
		total int
		want  string
	}{
		{"no total", &results.Record{EvalID: "a", Dataset: "ds", Verdict: results.VerdictPass, Score: 1, DurationMS: 5}, 0, "[3/?] PASS 1.000 ds/a (5ms)\n"},
		{"no dataset", &results.Record{EvalID: "b\nc", Verdict: results.VerdictFail, Score: 0.12345}, -1, "[3/?] FAIL 0.123 b c (0ms)\n"},
		{"error", &results.Record{EvalID: "e", Verdict: results.VerdictError, Error: "boom"}, 9, "[3/9] ERROR 0.000 e (0ms): boom\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			Progress(&b, tt.rec, 3, tt.total, false)
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
		})
	}
}

// isOneLine is only a shortcut: a text it accepts is one oneLine and clean leave alone.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", "a", "a b", "a  b", " a", "a ", "a\tb", "é", "x\x1b[31m", "ds/case-1", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isOneLine(s) && logtext.Block(oneLine(s)) != s {
			t.Errorf("isOneLine(%q) but logtext.Block(oneLine) = %q", s, logtext.Block(oneLine(s)))
		}
		// Progress joins a dataset and an id that each pass isOneLine without cleaning.
		ds, id := s[:len(s)/2], s[len(s)/2:]
		if joined := ds + "/" + id; isOneLine(ds) && isOneLine(id) && logtext.Block(oneLine(joined)) != joined {
			t.Errorf("%q and %q pass isOneLine but logtext.Block(oneLine(joined)) = %q", ds, id, logtext.Block(oneLine(joined)))
		}
		if want := strings.Join(strings.Fields(s), " "); oneLine(s) != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, oneLine(s), want)
		}
	})
}

// hostileTexts are ids, messages and file names that try to become workflow commands or to
// rewrite the log, each with a different line break or trick.
var hostileTexts = []string{
	"x\n::add-mask::e",
	"x\r::stop-commands::tok",
	"x\r\n  ::error file=a.go,line=1::forged",
	"x\u2028::set-output name=outcome::pass",
	"x\u2029::warning::p",
	"x\u0085::notice::nel",
	"x\v::debug::vt",
	"x\f::group::ff",
	"::add-mask::lead",
	"\t::add-mask::tab",
	"ok ##[add-mask]e",
	"\x1b[2K\x1b[1A::add-mask::ansi",
	"x\u202e::add-mask::bidi",
}

// checkLogLines fails for a line a GitHub runner would take for a workflow command.
func checkLogLines(t *testing.T, name, out string) {
	t.Helper()
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l := strings.TrimLeftFunc(line, unicode.IsSpace); strings.HasPrefix(l, "::") || strings.Contains(line, "##[") {
			t.Errorf("%s: workflow command in %q", name, line)
		}
		if strings.ContainsAny(line, "\x1b\u2028\u2029\u0085\v\f\u202e") {
			t.Errorf("%s: line break or escape in %q", name, line)
		}
	}
}

func TestConsoleHostileText(t *testing.T) {
	t.Parallel()
	var recs []*results.Record
	for i, h := range hostileTexts {
		recs = append(recs,
			&results.Record{EvalID: h, Dataset: h, File: h, Line: i + 1, Score: 0.9, Verdict: results.VerdictPass},
			&results.Record{EvalID: h + "-err", File: "f.yaml", Line: i + 1, Verdict: results.VerdictError, Error: h},
			&results.Record{EvalID: h, File: "g.yaml", Line: i + 1, Score: 0.1, Verdict: results.VerdictFail, Reasoning: h})
	}
	counts := tally(recs)
	counts.Problems = hostileTexts
	run := &Run{Records: recs, Counts: counts, Decision: gate.Decide(counts, gate.Defaults())}
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		Console(&b, run, color)
		// Our own styles are the only escapes.
		out := strings.NewReplacer(ansiReset, "", ansiBold, "", ansiRed, "", ansiGreen, "", ansiYellow, "").Replace(b.String())
		checkLogLines(t, "Console", out)
		if !strings.Contains(b.String(), `\::add-mask::lead`) {
			t.Errorf("Console does not show the leading-colon id escaped:\n%s", b.String())
		}
	}
	for i, r := range recs {
		var b bytes.Buffer
		Progress(&b, r, i+1, len(recs), false)
		checkLogLines(t, "Progress", b.String())
		if n := strings.Count(b.String(), "\n"); n != 1 {
			t.Errorf("Progress wrote %d lines for %q", n, r.EvalID)
		}
	}
}

// TestConsoleSections checks what the summary shows for runs that need different things:
// identical errors once, scores only for a decided run, the bottom list only below 1.0, and
// "cancelled" for an interrupted run.
func TestConsoleSections(t *testing.T) {
	t.Parallel()
	rec := func(id string, line int, score float64, v results.Verdict, err string) *results.Record {
		return &results.Record{EvalID: id, File: "s.yaml", Line: line, Score: score, Verdict: v, Error: err}
	}
	var outage []*results.Record
	for i := range 8 {
		outage = append(outage, rec(fmt.Sprintf("c%d", i), i+1, 0, results.VerdictError, "connection refused"))
	}
	outage = append(outage, rec("odd", 20, 0, results.VerdictError, "judge printed nothing"))
	decide := func(recs []*results.Record, problems ...string) *Run {
		counts := tally(recs)
		counts.Problems = problems
		return &Run{Records: recs, Counts: counts, Decision: gate.Decide(counts, gate.Defaults())}
	}
	cancelled := decide([]*results.Record{rec("a", 1, 1, results.VerdictPass, ""), rec("b", 2, 0.2, results.VerdictFail, "")},
		"run cancelled: 2 of 10 cases finished")
	cancelled.Cancelled, cancelled.Counts.Stopped, cancelled.Counts.Planned = true, true, 10
	diagnosed := func(ds ...suite.Diagnostic) *Run {
		r := decide([]*results.Record{rec("a", 1, 1, results.VerdictPass, "")})
		r.Diagnostics = ds
		return r
	}
	warn := suite.Diagnostic{File: "s.yaml", Line: 2, Col: 1, Message: `unknown key "bogus"`}
	dupID := suite.Diagnostic{File: "s.yaml", Line: 7, Col: 9, Severity: suite.SeverityError, Message: `duplicate case id "a"`}
	tests := []struct {
		name      string
		run       *Run
		want, not []string
	}{
		// The counts are those stderr printed: an error is no warning.
		{"an error and a warning", diagnosed(warn, dupID), []string{"\nErrors: 1   Warnings: 1\n"}, []string{"Warnings: 2"}},
		{"errors alone", diagnosed(dupID), []string{"\nErrors: 1\n"}, []string{"Warnings"}},
		{"warnings alone", diagnosed(warn), []string{"\nWarnings: 1\n"}, []string{"Errors:"}},
		{"identical errors grouped", decide(outage),
			[]string{"  ✗ 8 cases: connection refused\n      c0, c1, c2, c3, c4 and 3 more\n", "  ✗ odd: judge printed nothing\n"},
			[]string{"c5", "✗ c0:"}},
		{"bottom list holds only cases below 1.0",
			decide([]*results.Record{rec("p1", 1, 1, results.VerdictPass, ""), rec("p2", 2, 1, results.VerdictPass, ""), rec("f", 3, 0.5, results.VerdictFail, "")}),
			[]string{"Bottom 3 cases:\n  1. 0.500  f\n\nOutcome"}, []string{"  2. 1.000  p1\n  3. 1.000  p2\n\nOutcome"}},
		{"no bottom list when every case scored 1.0",
			decide([]*results.Record{rec("p1", 1, 1, results.VerdictPass, ""), rec("p2", 2, 1, results.VerdictPass, "")}),
			[]string{"Top 3 cases:\n  1. 1.000  p1\n  2. 1.000  p2\n\nOutcome: PASS"}, []string{"Bottom 3"}},
		{"invalid run lists its problems, not scores",
			decide([]*results.Record{rec("a", 1, 0.9, results.VerdictPass, "")}, "targets.yaml:3:5: unknown provider \"nope\"", "evals/x.yaml:1:1: no cases"),
			[]string{"Problems:\n  - targets.yaml:3:5: unknown provider \"nope\"\n  - evals/x.yaml:1:1: no cases\n", "Outcome: INVALID — 2 configuration or input problems"},
			[]string{"Mean score", "Score distribution", "Top 3", "Bottom 3"}},
		{"cancelled run", cancelled,
			[]string{"Total eval cases: 2 of 10\n", "Outcome: CANCELLED — run cancelled: 2 of 10 cases finished\n"},
			[]string{"Mean score", "Top 3", "INVALID", "Problems:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			Console(&b, tt.run, false)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in:\n%s", w, b.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("unexpected %q in:\n%s", n, b.String())
				}
			}
		})
	}
}

// A target that cannot run (an unset secret) gives each of its cases the same error: the
// progress prints it once per target, and later cases of that target say so briefly. Errors
// of cases that ran (a timeout) are each their own and printed in full.
func TestProgressLinesSayTargetErrorOnce(t *testing.T) {
	t.Parallel()
	const unset = `targets.yaml:4:5: target "gpt": api_key: environment variable KEY is not set`
	const other = `targets.yaml:9:5: target "claude": api_key: environment variable KEY2 is not set`
	unrun := func(id, target, err string) *results.Record {
		return &results.Record{EvalID: id, Target: target, Verdict: results.VerdictError, Error: err}
	}
	recs := []*results.Record{
		unrun("a", "gpt", unset),
		unrun("b", "gpt", unset),
		unrun("c", "claude", other),
		{EvalID: "d", Target: "mock", Verdict: results.VerdictError, Error: "timed out", Attempts: 3},
		{EvalID: "e", Target: "mock", Verdict: results.VerdictError, Error: "timed out", Attempts: 3},
		unrun("f", "claude", other),
		unrun("g", "", "no provider for this case"),
		unrun("h", "", "no provider for this case"),
		{EvalID: "i", Target: "gpt", Score: 1, Verdict: results.VerdictPass, Attempts: 1},
	}
	var b bytes.Buffer
	var lines ProgressLines
	for i, r := range recs {
		lines.Print(&b, r, i+1, len(recs), true)
	}
	want := `[1/9] ERROR 0.000 a [gpt] (0ms): ` + unset + `
[2/9] ERROR 0.000 b [gpt] (0ms): target "gpt": same error as above
[3/9] ERROR 0.000 c [claude] (0ms): ` + other + `
[4/9] ERROR 0.000 d [mock] (0ms): timed out
[5/9] ERROR 0.000 e [mock] (0ms): timed out
[6/9] ERROR 0.000 f [claude] (0ms): target "claude": same error as above
[7/9] ERROR 0.000 g (0ms): no provider for this case
[8/9] ERROR 0.000 h (0ms): same error as above
[9/9] PASS 1.000 i [gpt] (0ms)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}
