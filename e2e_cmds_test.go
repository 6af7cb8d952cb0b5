package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
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
