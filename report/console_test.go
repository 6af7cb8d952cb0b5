package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/results"
	"github.com/google/go-cmp/cmp"
)

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
		{"error with message", &results.Record{EvalID: "c", Dataset: "d", Verdict: results.VerdictError, Error: "timed out\nafter 120s", DurationMS: 120000}, 2, 2,
			"[2/2] ERROR 0.000 d/c (2m00s): timed out after 120s\n"},
		{"error field wins over verdict", &results.Record{EvalID: "c", Verdict: results.VerdictPass, Error: "boom"}, 1, 1,
			"[1/1] ERROR 0.000 c (0ms): boom\n"},
		{"unknown total", &results.Record{EvalID: "c", Score: 1, Verdict: results.VerdictPass}, 7, 0,
			"[7] PASS 1.000 c (0ms)\n"},
		{"hostile id", &results.Record{EvalID: "a\x1b[2Jb\nc", Score: 1, Verdict: results.VerdictPass}, 1, 1,
			"[1/1] PASS 1.000 ab c (0ms)\n"},
		{"nil record", nil, 1, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			Progress(&b, tt.rec, tt.done, tt.total)
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
	stripped := clean(color.String())
	if stripped != plain.String() {
		t.Error("colored output differs from plain output beyond styles")
	}
}

func TestConsoleSingleCaseHasNoStdDev(t *testing.T) {
	t.Parallel()
	recs := []*results.Record{{EvalID: "only", Score: 1, Verdict: results.VerdictPass}}
	counts := gate.Tally(recs)
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
		{"no total", &results.Record{EvalID: "a", Dataset: "ds", Verdict: results.VerdictPass, Score: 1, DurationMS: 5}, 0, "[3] PASS 1.000 ds/a (5ms)\n"},
		{"no dataset", &results.Record{EvalID: "b\nc", Verdict: results.VerdictFail, Score: 0.12345}, -1, "[3] FAIL 0.123 b c (0ms)\n"},
		{"error", &results.Record{EvalID: "e", Verdict: results.VerdictError, Error: "boom"}, 9, "[3/9] ERROR 0.000 e (0ms): boom\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			Progress(&b, tt.rec, 3, tt.total)
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
		if isOneLine(s) && clean(oneLine(s)) != s {
			t.Errorf("isOneLine(%q) but clean(oneLine) = %q", s, clean(oneLine(s)))
		}
		// Progress joins a dataset and an id that each pass isOneLine without cleaning.
		ds, id := s[:len(s)/2], s[len(s)/2:]
		if joined := ds + "/" + id; isOneLine(ds) && isOneLine(id) && clean(oneLine(joined)) != joined {
			t.Errorf("%q and %q pass isOneLine but clean(oneLine(joined)) = %q", ds, id, clean(oneLine(joined)))
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
	counts := gate.Tally(recs)
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
		Progress(&b, r, i+1, len(recs))
		checkLogLines(t, "Progress", b.String())
		if n := strings.Count(b.String(), "\n"); n != 1 {
			t.Errorf("Progress wrote %d lines for %q", n, r.EvalID)
		}
	}
}
