package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":    "ref: refs/heads/main\n",
		"targets.yaml": mockTargets + "  - name: bad\n    provider: cli\n    command_template: run {NOPE}\n",
		"good.yaml":    "evalcases:\n  - id: a\n    input: hi\n    jduge: typo\n",
		"bad.yaml":     "evalcases:\n  - id: a\n  - id: a\n    input: hi\n",
	})
	res := agentv(t, dir, nil, "validate", "good.yaml")
	if res.code != 2 || !strings.Contains(res.stdout, "{NOPE}") || !strings.Contains(res.stdout, `good.yaml:4:5`) {
		t.Errorf("validate with a bad target: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	writeFiles(t, dir, map[string]string{"targets.yaml": mockTargets})
	res = agentv(t, dir, nil, "validate", "good.yaml")
	if res.code != 0 || !strings.Contains(res.stdout, "jduge") || !strings.Contains(res.stdout, "1 case") {
		t.Errorf("validate good: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = agentv(t, dir, nil, "validate", "bad.yaml", "good.yaml")
	if res.code != 2 || !strings.Contains(res.stdout, "bad.yaml:2") || !strings.Contains(res.stdout, "bad.yaml:3") {
		t.Errorf("validate bad: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "agentv-results")); err == nil {
		t.Error("validate must not run anything or write results")
	}
}

func TestReportFromResults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":    "ref: refs/heads/main\n",
		"targets.yaml": mockTargets,
		"s.yaml":       "evalcases:\n  - id: a\n    input: hi\n  - id: b\n    input: hi\n",
	})
	res := agentv(t, dir, nil, "eval", "s.yaml")
	if res.code != 0 {
		t.Fatalf("eval: exit %d\n%s", res.code, res.stdout)
	}
	results := filepath.Join(res.outDir, "results.jsonl")
	out := t.TempDir()
	rep := agentv(t, dir, nil, "report", "--results", results, "--out-dir", out)
	if rep.code != 0 || !strings.Contains(rep.stdout, "Total eval cases: 2") {
		t.Errorf("report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	for _, f := range []string{"junit.xml", "summary.md", "comment.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report did not write %s", f)
		}
	}
	// Stricter gate than the run had: the mock judge's score of 1 still passes, a broken file does not.
	if rep := agentv(t, dir, nil, "report", "--results", filepath.Join(dir, "missing.jsonl"), "--out-dir", out); rep.code != 2 {
		t.Errorf("report on a missing file: exit %d, want 2", rep.code)
	}
}

func TestVersionAndUsage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	if res := agentv(t, dir, nil, "--version"); res.code != 0 || !strings.HasPrefix(res.stdout, "agentv ") {
		t.Errorf("--version: exit %d %q", res.code, res.stdout)
	}
	if res := agentv(t, dir, nil); res.code != 2 || !strings.Contains(res.stderr, "Usage:") {
		t.Errorf("no args: exit %d %q", res.code, res.stderr)
	}
	if res := agentv(t, dir, nil, "frobnicate"); res.code != 2 || !strings.Contains(res.stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d %q", res.code, res.stderr)
	}
	if res := agentv(t, dir, nil, "eval", "x.yaml", "--timeout", "soon"); res.code != 2 || !strings.Contains(res.stderr, "--timeout") {
		t.Errorf("bad flag: exit %d %q", res.code, res.stderr)
	}
}

// TestEvaluatorSettingsAtLoad checks that bad evaluator settings are load problems: validate
// reports each at its position without running anything, and eval reports them the same way
// (an invalid run) instead of scoring the cases as errored.
func TestEvaluatorSettingsAtLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, name := range []string{"bad.yaml", "targets.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "evaluator-settings", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	writeFiles(t, dir, files)
	want := []string{
		`bad.yaml:12:20: field_accuracy fields[1].match: unknown match "fuzzy"`,
		"bad.yaml:16:9: rubric evaluator needs `rubrics`",
		`bad.yaml:22:15: tool_trajectory mode: unknown mode "sometimes"`,
		`bad.yaml:29:31: composite aggregator.weights.accuracy: no member is named "accuracy"`,
		`bad.yaml:35:63: llm_judge rubrics[0].weight: must be a number, got a string`,
	}
	res := agentv(t, dir, nil, "validate", "bad.yaml")
	var errs []string
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(line, "error: ") {
			errs = append(errs, line)
		}
	}
	if res.code != 2 || len(errs) != len(want) || !strings.Contains(res.stdout, "1 case, 5 errors") {
		t.Errorf("validate: exit %d, %d errors, want 2 and %d\n%s%s", res.code, len(errs), len(want), res.stdout, res.stderr)
	}
	for i, w := range want {
		if i >= len(errs) || !strings.HasPrefix(errs[i], "error: "+w) {
			t.Errorf("validate error %d: want %q, got\n%s", i+1, w, res.stdout)
		}
	}

	res = agentv(t, dir, nil, "eval", "bad.yaml")
	if res.code != 2 {
		t.Errorf("eval: exit %d, want 2 (invalid)\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, w := range want {
		if !strings.Contains(res.stdout+res.stderr, w) {
			t.Errorf("eval output lacks %q\n%s%s", w, res.stdout, res.stderr)
		}
	}
	if len(res.records) != 1 || res.records[0].EvalID != "fine" || res.records[0].Verdict != "pass" {
		t.Errorf("eval records: want only the good case, scored; got %d", len(res.records))
		for _, r := range res.records {
			t.Logf("%s: %s %q", r.EvalID, r.Verdict, r.Error)
		}
	}
}
