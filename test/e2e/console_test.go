package e2e_test

import (
	"regexp"
	"strings"
	"testing"
)

var progressLine = regexp.MustCompile(`(?m)^\[(\d+)/(\d+|\?)\] (PASS|FAIL|ERROR) .*$`)

// TestConsoleProgressCountingJSONL checks the progress of a JSONL file whose cases are
// selected by --eval-id: the start line says the cases are counted as the file is read, and
// each line's total is "?" until they are, so it is not a golden (testdata/e2e/console-progress
// holds the other cases).
func TestConsoleProgressCountingJSONL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"targets.yaml": mockTargets, "s.jsonl": genJSONLCases(6)})
	res := agentv(t, dir, nil, "eval", "s.jsonl", "--eval-id", "case-a*")
	if start := "agentv: running cases (counted as the JSONL files are read) from 1 eval file\n"; !strings.HasPrefix(res.stderr, start) {
		t.Errorf("stderr does not start with %q:\n%s", start, res.stderr)
	}
	lines := progressLine.FindAllString(res.stderr, -1)
	if len(lines) != 6 {
		t.Fatalf("%d progress lines, want 6:\n%s", len(lines), res.stderr)
	}
	for _, l := range lines {
		if !strings.Contains(l, " PASS ") {
			t.Errorf("progress line %q lacks PASS", l)
		}
	}
}
