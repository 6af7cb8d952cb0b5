package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

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
