package action

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/gate"
)

// parseOutputFile reads a GITHUB_OUTPUT file the way the runner does: NAME=VALUE lines,
// or NAME<<DELIM followed by lines up to one that equals DELIM.
func parseOutputFile(t *testing.T, path string) []Output {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Output
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		name, delim, ok := strings.Cut(line, "<<")
		if !ok {
			n, v, _ := strings.Cut(line, "=")
			out = append(out, Output{n, v})
			continue
		}
		var lines []string
		closed := false
		for sc.Scan() {
			if sc.Text() == delim {
				closed = true
				break
			}
			lines = append(lines, sc.Text())
		}
		if !closed {
			t.Fatalf("output %s: delimiter %q never closed", name, delim)
		}
		out = append(out, Output{name, strings.Join(lines, "\n")})
	}
	return out
}

func TestOutputsSurviveHostileValues(t *testing.T) {
	t.Parallel()
	hostile := strings.Join([]string{
		"EOF",
		"_GitHubActionsFileCommandDelimeter_",
		"ghadelimiter_00000000000000000000000000000000",
		"outcome<<EOF",
		"pass",
		"EOF",
		"outcome=pass",
		"",
	}, "\n")
	outs := []Output{
		{"outcome", "fail"},
		{"answer", hostile},
		{"empty", ""},
		{"multi-line", "a\r\nb\n\nc"},
	}
	path := filepath.Join(t.TempDir(), "output")
	// The first draw is all zeros, which the hostile value contains: it must be redrawn.
	rnd := bytes.NewReader(append(make([]byte, 16), bytes.Repeat([]byte{0xab}, 16*8)...))
	o := Outputs{Path: path, Rand: rnd}
	if err := o.SetAll(outs); err != nil {
		t.Fatal(err)
	}
	got := parseOutputFile(t, path)
	want := []Output{
		{"outcome", "fail"},
		{"answer", hostile},
		{"empty", ""},
		{"multi-line", "a\nb\n\nc"}, // the runner reads CRLF as a line break too
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs as the runner reads them (-want +got):\n%s", diff)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "answer<<ghadelimiter_00000000000000000000000000000000") {
		t.Error("the colliding delimiter was used")
	}
}

func TestOutputsRandomDelimiters(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	o := Outputs{Path: path}
	if err := o.SetAll([]Output{{"a", "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := o.SetAll([]Output{{"b", "2"}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(string(data), "\n")
	_, d1, _ := strings.Cut(lines[0], "<<")
	_, d2, _ := strings.Cut(lines[3], "<<")
	if d1 == d2 || !strings.HasPrefix(d1, "ghadelimiter_") || len(d1) != len("ghadelimiter_")+32 {
		t.Errorf("delimiters %q and %q: want two different random ones", d1, d2)
	}
}

func TestOutputsErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		o    Outputs
		out  Output
	}{
		{"name with newline", Outputs{Path: filepath.Join(dir, "a")}, Output{"x\ny", "v"}},
		{"name with heredoc", Outputs{Path: filepath.Join(dir, "b")}, Output{"x<<EOF", "v"}},
		{"empty name", Outputs{Path: filepath.Join(dir, "c")}, Output{"", "v"}},
		{"broken randomness", Outputs{Path: filepath.Join(dir, "d"), Rand: bytes.NewReader(nil)}, Output{"x", "v"}},
		{"always colliding", Outputs{Path: filepath.Join(dir, "e"), Rand: bytes.NewReader(make([]byte, 1024))}, Output{"x", "ghadelimiter_00000000000000000000000000000000"}},
		{"unwritable", Outputs{Path: filepath.Join(dir, "missing", "output")}, Output{"x", "v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.o.SetAll([]Output{tt.out}); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestOutputsWithoutRunnerAreNoOps(t *testing.T) {
	t.Parallel()
	if err := (Outputs{}).SetAll([]Output{{"outcome", "pass"}}); err != nil {
		t.Errorf("SetAll without GITHUB_OUTPUT: %v", err)
	}
	if err := (Summary{}).Append("# hi"); err != nil {
		t.Errorf("Append without GITHUB_STEP_SUMMARY: %v", err)
	}
}

func TestRunOutputs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	r := RunOutputs{
		Outcome: gate.Fail, Total: 3, Passed: 1, Failed: 1, Errors: 1, Flaky: 2,
		MeanScore: 2.0 / 3, PassRate: 1.0 / 3,
		ResultsPath: "agentv-results/results.jsonl", JUnitPath: "agentv-results/junit.xml",
		SummaryPath: "agentv-results/summary.md", CommentURL: "https://github.com/o/r/pull/7#issuecomment-1",
	}
	if err := (Outputs{Path: path}).SetAll(r.Pairs()); err != nil {
		t.Fatal(err)
	}
	want := []Output{
		{"outcome", "fail"}, {"total", "3"}, {"passed", "1"}, {"failed", "1"}, {"errors", "1"},
		{"skipped", "0"}, {"flaky", "2"}, {"mean-score", "0.6667"}, {"pass-rate", "0.3333"},
		{"results-path", "agentv-results/results.jsonl"}, {"junit-path", "agentv-results/junit.xml"},
		{"summary-path", "agentv-results/summary.md"}, {"comment-url", "https://github.com/o/r/pull/7#issuecomment-1"},
		{"regressions", ""}, {"improvements", ""}, {"mean-score-delta", ""}, // no baseline
	}
	if diff := cmp.Diff(want, parseOutputFile(t, path)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		delta float64
		want  string
	}{{-0.12345, "-0.1235"}, {0.05, "+0.0500"}, {-0.00001, "0.0000"}, {0, "0.0000"}} {
		r := RunOutputs{Compared: true, Regressions: 2, Improvements: 1, MeanScoreDelta: tt.delta}
		got := map[string]string{}
		for _, o := range r.Pairs() {
			got[o.Name] = o.Value
		}
		if got["regressions"] != "2" || got["improvements"] != "1" || got["mean-score-delta"] != tt.want {
			t.Errorf("delta %v: regressions %q improvements %q mean-score-delta %q, want 2, 1, %q", tt.delta, got["regressions"], got["improvements"], got["mean-score-delta"], tt.want)
		}
	}
}

func TestSummaryAppend(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "summary")
	s := Summary{Path: path}
	if err := s.Append("# one"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("two\n"); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", MaxSummaryBytes-len("# one\ntwo\n"))
	err := s.Append(big)
	if !errors.Is(err, ErrSummaryTooLarge) {
		t.Fatalf("appending past 1 MiB: err = %v, want ErrSummaryTooLarge", err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "# one\ntwo\n" {
		t.Errorf("summary = %q, want the earlier appends untouched", data)
	}
	if err := s.Append(big[1:]); err != nil {
		t.Errorf("appending up to exactly 1 MiB: %v", err)
	}
}

func FuzzOutputs(f *testing.F) {
	f.Add("EOF\nverdict<<EOF\npass\nEOF")
	f.Add("_GitHubActionsFileCommandDelimeter_")
	f.Add("")
	f.Add("\n\n")
	f.Fuzz(func(t *testing.T, value string) {
		value = strings.ReplaceAll(value, "\r", "") // the runner reads CR LF as LF
		path := filepath.Join(t.TempDir(), "output")
		o := Outputs{Path: path}
		if err := o.SetAll([]Output{{"before", "1"}, {"v", value}, {"after", "2"}}); err != nil {
			t.Fatal(err)
		}
		want := []Output{{"before", "1"}, {"v", value}, {"after", "2"}}
		if diff := cmp.Diff(want, parseOutputFile(t, path)); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

func TestSummaryRoom(t *testing.T) {
	t.Parallel()
	if got := (Summary{}).Room(); got != MaxSummaryBytes {
		t.Errorf("local run: Room = %d", got)
	}
	path := filepath.Join(t.TempDir(), "summary")
	s := Summary{Path: path}
	if got := s.Room(); got != MaxSummaryBytes {
		t.Errorf("no file yet: Room = %d", got)
	}
	if err := s.Append(strings.Repeat("x", 999) + "\n"); err != nil {
		t.Fatal(err)
	}
	if got := s.Room(); got != MaxSummaryBytes-1000 {
		t.Errorf("after 1000 bytes: Room = %d", got)
	}
	if err := os.WriteFile(path, make([]byte, MaxSummaryBytes+5), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.Room(); got != 0 {
		t.Errorf("over-full file: Room = %d", got)
	}
}
