package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mergedSuite has cases that pass and cases that fail, so a merge has a fail outcome to replay.
const mergedSuite = `name: merged
tests:
  - id: p1
    input: q
    assertions: [{type: contains, value: hi}]
  - id: p2
    input: q
    assertions: [{type: contains, value: hi}]
  - id: f1
    input: q
    assertions: [{type: contains, value: nope}]
  - id: p3
    input: q
    assertions: [{type: contains, value: hi}]
`

// A merge of shards writes one results file of a whole run: a report of that file alone
// reaches the merge's counts, outcome and JUnit test cases, and it serves as a baseline.
func TestMergedResultsFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: hi\n",
		"s.yaml":       mergedSuite,
	})
	var args []string
	for i := 1; i <= 2; i++ {
		res := agentv(t, dir, nil, "eval", "s.yaml", "--shard", fmt.Sprintf("%d/2", i))
		if res.code > 1 {
			t.Fatalf("shard %d: exit %d\n%s%s", i, res.code, res.stdout, res.stderr)
		}
		args = append(args, "--results", filepath.Join(res.outDir, "results.jsonl"))
	}
	mergedDir := t.TempDir()
	rep := agentv(t, dir, nil, append(append([]string{"report"}, args...), "--out-dir", mergedDir)...)
	if rep.code != 1 || !strings.Contains(rep.stdout, "Passed: 3   Failed: 1") {
		t.Fatalf("merged report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	merged := filepath.Join(mergedDir, "results.jsonl")
	if !strings.Contains(rep.stdout, "Results written to") {
		t.Errorf("the merge does not name its results file:\n%s", rep.stdout)
	}
	// The file alone: reports go elsewhere so the merge's JUnit stays to compare with.
	again := agentv(t, dir, nil, "report", "--results", merged, "--out-dir", t.TempDir())
	if again.code != rep.code || !strings.Contains(again.stdout, "Passed: 3   Failed: 1") || !strings.Contains(again.stdout, "Outcome: FAIL") {
		t.Errorf("report of the merged file: exit %d (merge %d)\n%s%s", again.code, rep.code, again.stdout, again.stderr)
	}
	if strings.Contains(again.stderr, "no run records") || strings.Contains(again.stdout, "invalid") {
		t.Errorf("the merged file is not a whole run:\n%s%s", again.stdout, again.stderr)
	}
	againDir := t.TempDir()
	again = agentv(t, dir, nil, "report", "--results", merged, "--out-dir", againDir)
	if diff := cmp.Diff(junitCases(t, filepath.Join(mergedDir, "junit.xml")), junitCases(t, filepath.Join(againDir, "junit.xml"))); diff != "" {
		t.Errorf("JUnit test cases of the merged file differ from the merge's (-merge +file):\n%s", diff)
	}
	// As a baseline: the same cases, nothing regressed.
	base := agentv(t, dir, nil, "eval", "s.yaml", "--baseline", merged)
	if base.code != 1 || !strings.Contains(base.stdout, "Regressed: 0   Improved: 0   New: 0   Removed: 0") {
		t.Errorf("eval against the merged baseline: exit %d\n%s%s", base.code, base.stdout, base.stderr)
	}
	if strings.Contains(base.stdout+base.stderr, "could not") {
		t.Errorf("the merged baseline was not read:\n%s%s", base.stdout, base.stderr)
	}

	// A merge given a shard twice is invalid, and so is its file read alone.
	b, err := os.ReadFile(args[1])
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"again.jsonl": string(b)})
	bad := t.TempDir()
	rep = agentv(t, dir, nil, append(append([]string{"report"}, args...), "--results", "again.jsonl", "--out-dir", bad)...)
	if rep.code != 2 {
		t.Fatalf("merge with a shard twice: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	again = agentv(t, dir, nil, "report", "--results", filepath.Join(bad, "results.jsonl"), "--out-dir", t.TempDir())
	if again.code != 2 || !strings.Contains(again.stdout, "shard 1 of 2 is in") {
		t.Errorf("report of a merge missing a shard: exit %d\n%s%s", again.code, again.stdout, again.stderr)
	}

	// The merged file is an output: a merge that names it as an input is refused.
	before, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	rep = agentv(t, dir, nil, append(append([]string{"report"}, args...), "--results", merged, "--out-dir", mergedDir)...)
	if rep.code != 2 || !strings.Contains(rep.stderr+rep.stdout, "both an output and an input") {
		t.Errorf("merge naming its own output: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	if after, _ := os.ReadFile(merged); string(after) != string(before) {
		t.Error("the refused merge changed the merged results file")
	}
}

// A merge is invalid whenever a report of its merged results file would be: two whole runs
// of the same suite hold the same cases, so their merge repeats every case. Before, the merge
// passed and only its own results file, read back (or used as a baseline), was invalid.
func TestMergeOfRepeatedCasesIsInvalid(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: hi\n",
		"s.yaml":       "name: twice\ntests:\n  - id: only\n    input: q\n    assertions: [{type: contains, value: hi}]\n",
	})
	var files []string
	for i := range 2 {
		res := agentv(t, dir, nil, "eval", "s.yaml")
		if res.code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", i+1, res.code, res.stdout, res.stderr)
		}
		name := fmt.Sprintf("run%d.jsonl", i+1)
		b, err := os.ReadFile(filepath.Join(res.outDir, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{name: string(b)})
		files = append(files, name)
	}
	out := t.TempDir()
	rep := agentv(t, dir, nil, "report", "--results", files[0], "--results", files[1], "--out-dir", out)
	want := `run2.jsonl line 2 repeats "only" of run1.jsonl line 2`
	if rep.code != 2 || !strings.Contains(rep.stdout, want) {
		t.Fatalf("merge of two runs of one case: exit %d, want 2 naming %q\n%s%s", rep.code, want, rep.stdout, rep.stderr)
	}
	// The merged file read alone reaches the same outcome.
	again := agentv(t, dir, nil, "report", "--results", filepath.Join(out, "results.jsonl"), "--out-dir", t.TempDir())
	if again.code != 2 {
		t.Errorf("report of the merged file: exit %d, want 2\n%s%s", again.code, again.stdout, again.stderr)
	}
	// Results of one case against two targets are not repeats.
	writeFiles(t, dir, map[string]string{"other.jsonl": strings.ReplaceAll(readFile(t, filepath.Join(dir, files[1])), `"target":"default"`, `"target":"other"`)})
	rep = agentv(t, dir, nil, "report", "--results", files[0], "--results", "other.jsonl", "--out-dir", t.TempDir())
	if rep.code != 0 {
		t.Errorf("merge of one case against two targets: exit %d, want 0\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// A merge given no --out-dir writes into a folder of its own, agentv-results/ in the working
// directory (eval's default), never into the folder holding its inputs, where it replaced
// the user's own summary.md (and for inputs in unrelated trees, wrote to /).
func TestMergeDefaultOutDir(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: hi\n",
		"s.yaml":       mergedSuite,
	})
	mine := "# My own notes\n"
	var args []string
	for i := 1; i <= 2; i++ {
		res := agentv(t, dir, nil, "eval", "s.yaml", "--shard", fmt.Sprintf("%d/2", i))
		if res.code > 1 {
			t.Fatalf("shard %d: exit %d\n%s%s", i, res.code, res.stdout, res.stderr)
		}
		shard := fmt.Sprintf("shards/%d/results.jsonl", i)
		writeFiles(t, dir, map[string]string{shard: readFile(t, filepath.Join(res.outDir, "results.jsonl"))})
		args = append(args, "--results", shard)
	}
	writeFiles(t, dir, map[string]string{"shards/summary.md": mine, "shards/junit.xml": "<mine/>"})
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range args {
		if args[i] != "--results" {
			args[i] = filepath.Join("..", args[i])
		}
	}
	rep := agentv(t, work, nil, append([]string{"report"}, args...)...)
	if rep.code != 1 || !strings.Contains(rep.stdout, "Passed: 3   Failed: 1") {
		t.Fatalf("merged report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "shards", "summary.md")); got != mine {
		t.Errorf("the merge replaced the user's summary.md beside its inputs:\n%s", got)
	}
	if got := readFile(t, filepath.Join(dir, "shards", "junit.xml")); got != "<mine/>" {
		t.Errorf("the merge replaced the user's junit.xml beside its inputs")
	}
	for _, f := range []string{"results.jsonl", "summary.md", "comment.md", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(work, "agentv-results", f)); err != nil {
			t.Errorf("the merge did not write %s into agentv-results/ of the working directory: %v", f, err)
		}
	}
	if !strings.Contains(rep.stdout, "Results written to "+filepath.Join("agentv-results", "results.jsonl")) {
		t.Errorf("the merge does not name its results file:\n%s", rep.stdout)
	}
}

// A merge and a report of the results file it wrote reach the same outcome, whatever makes
// the merged files valid or not: the merge refuses what a replay of its output would.
func TestMergeAgreesWithItsReplay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	start := `{"record":"run_start","format":1,"gate":{"case_threshold":0.8,"max_failures":0,"max_errors":0}}` + "\n"
	end := func(n int) string {
		return fmt.Sprintf(`{"record":"run_end","format":1,"cases":%d,"planned":%d,"planned_complete":true}`+"\n", n, n)
	}
	c := func(id, target string) string {
		return fmt.Sprintf(`{"eval_id":%q,"dataset":"d","file":"s.yaml","target":%q,"score":1,"verdict":"pass"}`+"\n", id, target)
	}
	run := func(cases ...string) string { return start + strings.Join(cases, "") + end(len(cases)) }
	tests := []struct {
		name  string
		files []string
		code  int
	}{
		{"disjoint whole runs", []string{run(c("a", "t")), run(c("b", "t"))}, 0},
		{"one case on two targets", []string{run(c("a", "t")), run(c("a", "u"))}, 0},
		{"one case in two runs", []string{run(c("a", "t"), c("b", "t")), run(c("b", "t"))}, 2},
		{"a repeat inside one file", []string{run(c("a", "t"), c("a", "t")), run(c("b", "t"))}, 2},
		{"a record without an id", []string{run(c("", "t")), run(c("b", "t"))}, 2},
		{"a killed run", []string{start + c("a", "t"), run(c("b", "t"))}, 2},
		{"files without run records", []string{c("a", "t"), c("b", "t")}, 0},
		{"files without run records, repeating", []string{c("a", "t"), c("a", "t")}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"report"}
			for i, f := range tt.files {
				name := fmt.Sprintf("r%d.jsonl", i+1)
				writeFiles(t, dir, map[string]string{name: f})
				args = append(args, "--results", name)
			}
			out := t.TempDir()
			merge := agentv(t, dir, nil, append(args, "--out-dir", out)...)
			replay := agentv(t, dir, nil, "report", "--results", filepath.Join(out, "results.jsonl"), "--out-dir", t.TempDir())
			if merge.code != tt.code || replay.code != merge.code {
				t.Errorf("merge exit %d, report of its file exit %d; want both %d\nmerge:\n%s%s\nreplay:\n%s%s",
					merge.code, replay.code, tt.code, merge.stdout, merge.stderr, replay.stdout, replay.stderr)
			}
		})
	}
}
