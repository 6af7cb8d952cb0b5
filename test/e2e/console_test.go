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

// A target that cannot run (its API key's variable is unset) fails every case of it with
// one reason: the progress prints that reason once, the later cases say briefly that it is
// the same, and the summary groups them.
func TestConsoleTargetErrorOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"targets.yaml": "targets:\n  - name: default\n    provider: openai\n    model: gpt-4o\n    api_key: ${{ AGENTV_TEST_UNSET_KEY }}\n",
		"a.yaml":       "evalcases:\n" + genCases(4),
	})
	res := agentv(t, dir, nil, "eval", "a.yaml")
	if res.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", res.code, res.stderr)
	}
	lines := progressLine.FindAllString(res.stderr, -1)
	if len(lines) != 4 {
		t.Fatalf("%d progress lines, want 4:\n%s", len(lines), res.stderr)
	}
	full := 0
	for _, l := range lines {
		switch {
		case strings.Contains(l, "AGENTV_TEST_UNSET_KEY is not set"):
			full++
		case !strings.HasSuffix(l, ": same error as above"):
			t.Errorf("progress line neither says the error nor refers to it: %q", l)
		}
	}
	if full != 1 {
		t.Errorf("the target's error is on %d progress lines, want 1:\n%s", full, res.stderr)
	}
	if !strings.Contains(res.stdout, "✗ 4 cases: ") {
		t.Errorf("the summary does not group the 4 cases:\n%s", res.stdout)
	}
}
