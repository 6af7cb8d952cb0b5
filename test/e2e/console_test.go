package e2e_test

import (
	"regexp"
	"strings"
	"testing"
)

var progressLine = regexp.MustCompile(`(?m)^\[(\d+)/(\d+|\?)\] (PASS|FAIL|ERROR) .*$`)

// TestConsoleProgress checks the progress a person watches: a line saying what will run before
// any case finishes, "[k/total]" with the total known up front for YAML suites ("?" while
// JSONL files are still being read), and the reason on a failed case's line.
func TestConsoleProgress(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	failing := strings.Replace(mockTargets, `'{"score": 1, "hits": ["ok"], "misses": [], "reasoning": "fine"}'`,
		`'{"score": 0.2, "hits": [], "misses": ["does not name the refund window"], "reasoning": "r"}'`, 1)
	tests := []struct {
		name      string
		files     map[string]string
		args      []string
		start     string
		total     string // every line's total; "" when it may be "?" or the count
		lineWants string // each progress line contains this
	}{
		{name: "YAML files", files: map[string]string{"targets.yaml": mockTargets, "a.yaml": "evalcases:\n" + genCases(3), "b.yaml": "evalcases:\n" + genCases(2)},
			args: []string{"a.yaml", "b.yaml"}, start: "agentv: running 5 cases from 2 eval files\n", total: "5", lineWants: " PASS "},
		{name: "eval-id counts the selected cases", files: map[string]string{"targets.yaml": mockTargets, "a.yaml": "evalcases:\n" + genCases(12)},
			args: []string{"a.yaml", "--eval-id", "case-00*"}, start: "agentv: running 10 cases from 1 eval file\n", total: "10", lineWants: " PASS "},
		{name: "JSONL file: its lines are counted first", files: map[string]string{"targets.yaml": mockTargets, "s.jsonl": genJSONLCases(6) + "\n\n"},
			args: []string{"s.jsonl"}, start: "agentv: running 6 cases from 1 eval file\n", total: "6", lineWants: " PASS "},
		{name: "JSONL file with eval-id", files: map[string]string{"targets.yaml": mockTargets, "s.jsonl": genJSONLCases(6)},
			args: []string{"s.jsonl", "--eval-id", "case-a*"}, start: "agentv: running cases (counted as the JSONL files are read) from 1 eval file\n", lineWants: " PASS "},
		{name: "failed cases say why", files: map[string]string{"targets.yaml": failing, "a.yaml": "evalcases:\n" + genCases(2)},
			args: []string{"a.yaml"}, start: "agentv: running 2 cases from 1 eval file\n", total: "2", lineWants: " FAIL 0.200 a/case-00"},
		{name: "trials are counted", files: map[string]string{"targets.yaml": mockTargets, "a.yaml": "evalcases:\n" + genCases(2)},
			args: []string{"a.yaml", "--trials", "3"}, start: "agentv: running 2 cases × 3 trials from 1 eval file\n", total: "2", lineWants: " PASS "},
		// A shard says which part of how many cases it runs, not a count that reads as the suite's.
		{name: "a shard", files: map[string]string{"targets.yaml": mockTargets, "a.yaml": "evalcases:\n" + genCases(5)},
			args: []string{"a.yaml", "--shard", "2/3"}, start: "agentv: shard 2/3: running 2 of 5 cases from 1 eval file\n", total: "2", lineWants: " PASS "},
		{name: "a shard of a JSONL file", files: map[string]string{"targets.yaml": mockTargets, "s.jsonl": genJSONLCases(6)},
			args: []string{"s.jsonl", "--shard", "1/2"}, start: "agentv: shard 1/2: running 3 of 6 cases from 1 eval file\n", total: "3", lineWants: " PASS "},
		{name: "a file's own trials", files: map[string]string{"targets.yaml": mockTargets, "a.yaml": "evalcases:\n" + genCases(2),
			"b.eval.yaml": "execution:\n  trials: {count: 2}\ntests:\n  - id: t\n    input: hi\n    criteria: says hi\n"},
			args: []string{"a.yaml", "b.eval.yaml"}, start: "agentv: running 3 cases, some with several trials, from 2 eval files\n", total: "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			res := agentv(t, dir, nil, append([]string{"eval"}, tt.args...)...)
			if !strings.HasPrefix(res.stderr, tt.start) {
				t.Errorf("stderr does not start with %q:\n%s", tt.start, res.stderr)
			}
			lines := progressLine.FindAllStringSubmatch(res.stderr, -1)
			if len(lines) == 0 {
				t.Fatalf("no progress lines:\n%s", res.stderr)
			}
			for _, m := range lines {
				if tt.total != "" && m[2] != tt.total {
					t.Errorf("progress line %q: total %s, want %s", m[0], m[2], tt.total)
				}
				if !strings.Contains(m[0], tt.lineWants) {
					t.Errorf("progress line %q lacks %q", m[0], tt.lineWants)
				}
				if m[3] == "FAIL" && !strings.HasSuffix(m[0], ": does not name the refund window") {
					t.Errorf("failed case's line does not end with its reason: %q", m[0])
				}
			}
		})
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
