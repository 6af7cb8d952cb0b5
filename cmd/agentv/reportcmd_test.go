package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// readResults re-grades each record with the report's threshold, keeps the records before a
// malformed line, and says which line broke.
func TestReadResults(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	lines := []string{
		`{"eval_id":"a","score":0.7,"verdict":"fail","file":"e.yaml","line":1}`,
		`{"eval_id":"b","score":0.9,"verdict":"pass","file":"e.yaml","line":5}`,
		`{"eval_id":"c","score":1,"verdict":"pass","error":"timed out","file":"e.yaml","line":9}`,
		`{broken`,
		`{"eval_id":"d","score":1,"verdict":"pass","file":"e.yaml","line":13}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := readResults([]string{path}, t.TempDir(), "", "--out-dir", report.DetailsFailures, gate.Options{CaseThreshold: 0.6}, nil)
	defer out.Close()
	if p := strings.Join(out.Problems, "\n"); !strings.Contains(p, "line 4") {
		t.Errorf("problems = %q, want one naming line 4", p)
	}
	var got []string
	for _, c := range out.Cases {
		got = append(got, c.EvalID+"="+string(c.Verdict))
	}
	if want := "a=pass b=pass c=error"; strings.Join(got, " ") != want {
		t.Errorf("cases = %v, want %s", got, want)
	}
	if out.JUnitParts == nil {
		t.Error("no JUnit spool")
	}
	var r results.Record
	regrade(&r, 0.8)
	if r.Verdict != results.VerdictFail {
		t.Errorf("score 0 at threshold 0.8: %s, want fail", r.Verdict)
	}
}

// A report that gates differently from the run that wrote the file says so; a file's own
// problems and a run that did not finish make it invalid input.
func TestReadResultsRunRecords(t *testing.T) {
	t.Parallel()
	start := `{"record":"run_start","format":1,"timestamp":"t","gate":{"case_threshold":0.8,"max_failures":1,"max_errors":0}}`
	pass := `{"eval_id":"a","score":1,"verdict":"pass","file":"e.yaml","line":1}`
	end := `{"record":"run_end","format":1,"timestamp":"t","planned":1,"planned_complete":true,"cases":1,"outcome":"pass"}`
	tests := []struct {
		name         string
		lines        []string
		g            gate.Options
		wantNote     string
		wantProblems string
	}{
		{name: "same gate", lines: []string{start, pass, end}, g: gate.Options{CaseThreshold: 0.8, MaxFailures: 1}},
		{name: "other gate", lines: []string{start, pass, end}, g: gate.Defaults(),
			wantNote: "the run gated with case threshold 0.8, max-failures 1, max-errors 0; this report gates with case threshold 0.8, max-failures 0, max-errors 0"},
		{name: "killed", lines: []string{start, pass}, g: gate.Options{CaseThreshold: 0.8, MaxFailures: 1},
			wantProblems: "results.jsonl: line 1: the run that started here did not finish"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "results.jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := readResults([]string{path}, dir, dir, "--out-dir", report.DetailsFailures, tt.g, nil)
			defer out.Close()
			var notes []string
			for _, d := range out.Diagnostics {
				notes = append(notes, d.Message)
			}
			if got := strings.Join(notes, "\n"); got != tt.wantNote {
				t.Errorf("notes = %q, want %q", got, tt.wantNote)
			}
			if got := strings.Join(out.Problems, "\n"); tt.wantProblems == "" && got != "" || !strings.Contains(got, tt.wantProblems) {
				t.Errorf("problems = %q, want %q", got, tt.wantProblems)
			}
		})
	}
}

// Merged results files come from artifacts and globs: a file reached twice (under its name
// and through a symbolic link, or a linked folder) counts once, `**` does not follow a link
// to a folder (a loop would never end), and a pattern matching more files than a run can
// have shards is refused.
func TestExpandResultsHostile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"s1/results.jsonl", "s2/results.jsonl"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for old, link := range map[string]string{
		"s1/results.jsonl": "s2/again.jsonl",
		"..":               "s2/loop",
		"s1":               "s3",
	} {
		if err := os.Symlink(filepath.Join(dir, old), filepath.Join(dir, link)); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for _, tc := range []struct {
		patterns []string
		want     string
	}{
		{[]string{"s1/results.jsonl", "s2/again.jsonl"}, "s1/results.jsonl"},
		{[]string{"**/*.jsonl"}, "s1/results.jsonl s2/results.jsonl"},
		{[]string{"s3/results.jsonl", "**/results.jsonl"}, "s3/results.jsonl s2/results.jsonl"},
	} {
		got, err := expandResults(dir, tc.patterns)
		if err != nil {
			t.Errorf("%v: %v", tc.patterns, err)
			continue
		}
		if g := strings.Join(rel(got), " "); g != tc.want {
			t.Errorf("%v: got %s, want %s", tc.patterns, g, tc.want)
		}
	}

	many := t.TempDir()
	for i := range maxResultsFiles + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("r%05d.jsonl", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := expandResults(many, []string{"*.jsonl"}); err == nil || !strings.Contains(err.Error(), "more than 10000 files") {
		t.Errorf("%d files: err = %v", maxResultsFiles+1, err)
	}
}
