package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// TestWorkspaceHooksLikeAgentV4 runs testdata/hooks/hooks.yaml: a workspace whose
// before_each, after_each and after_all hooks write to it, and a cli target that answers what
// they wrote. The scores are AgentV 4.42.4's on the same file (targets in .agentv/), from
//
//	AGENTV_NO_UPDATE_CHECK=1 node node_modules/agentv/dist/cli.js eval hooks.yaml -o run
//
// t1 1 (before_each ran before the target, after_each after it), t2 0 (an error: "before_each
// script failed: ... hook refused t2"), t3 1, t4 1 (its after_each failing is only a warning),
// t5 1; after_all was told {"test_id": "__after_all__", "case_input": null, ...}.
func TestWorkspaceHooksLikeAgentV4(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh", "sed", "cat")
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, name := range []string{"hook.sh", "hooks.yaml", "targets.yaml", "tpl/README.md"} {
		files[name] = readFile(t, filepath.Join("testdata", "hooks", filepath.FromSlash(name)))
	}
	writeFiles(t, dir, files)
	res := agentv(t, dir, nil, "eval", "hooks.yaml")
	if res.code != 3 {
		t.Errorf("exit %d, want 3 (one errored case)\n%s%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]float64{"t1": 1, "t2": 0, "t3": 1, "t4": 1, "t5": 1}
	got := res.byID()
	for id, score := range want {
		r := got[id]
		if r == nil {
			t.Errorf("no record for %s\n%s%s", id, res.stdout, res.stderr)
			continue
		}
		errored := id == "t2"
		if r.Score != score || (r.Verdict == results.VerdictError) != errored {
			t.Errorf("%s: score %v verdict %s error %q answer %q, want %v", id, r.Score, r.Verdict, r.Error, r.CandidateAnswer, score)
		}
	}
	if r := got["t2"]; r != nil && !strings.Contains(r.Error, "before_each hook failed") || r != nil && !strings.Contains(r.Error, "hook refused t2") {
		t.Errorf("t2: error %q, want the before_each failure with the hook's stderr", r.Error)
	}
	// t4's failing after_each is a warning on that case, which every report shows.
	if r := got["t4"]; r != nil && (len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].Message, "after_each hook failed")) {
		t.Errorf("t4: warnings %+v, want the after_each failure", r.Warnings)
	}
	if md := readFile(t, filepath.Join(res.outDir, "summary.md")); !strings.Contains(md, "after_each hook failed") {
		t.Errorf("the summary does not show t4's after_each failure:\n%s", md)
	}
	if r := got["t5"]; r != nil && strings.TrimSpace(r.CandidateAnswer) != "before:t1 after:t1 before:t3 after:t3 before:t4 before:t5" {
		t.Errorf("t5: the hooks wrote %q", r.CandidateAnswer)
	}
	b, err := os.ReadFile(filepath.Join(dir, "after_all.json"))
	if err != nil {
		t.Fatalf("after_all did not run: %v", err)
	}
	var told map[string]any
	if err := json.Unmarshal(b, &told); err != nil || told["test_id"] != "__after_all__" || told["case_input"] != nil ||
		!strings.Contains(told["workspace_path"].(string), "agentv-workspace-") {
		t.Errorf("after_all was told %s (%v)", b, err)
	}
}

// TestFailingAfterAllHookWarnsAlways: a failing after_all hook leaves the run as it was (exit
// 0 here) and, as AgentV 4.42.4 prints "Script warning: <its stderr>" on every run, is a
// warning at the hook on the console and in the reports without --verbose. 4.42.4 on the same
// file (targets in .agentv/): exit 0, t1 passes, stderr "Script warning: cleanup went wrong".
func TestFailingAfterAllHookWarnsAlways(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh", "cat")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: sh -c 'echo Paris > {OUTPUT_FILE}'
`,
		"tpl/README.md": "template\n",
		"after.eval.yaml": `workspace:
  template: tpl
  hooks:
    after_all: {command: [sh, -c, "cat >/dev/null; echo cleanup went wrong >&2; exit 4"]}
tests:
  - id: t1
    input: hi
    assertions: [{type: contains, value: Paris}]
`,
	})
	res := agentv(t, dir, nil, "eval", "after.eval.yaml")
	if res.code != 0 {
		t.Errorf("exit %d, want 0: a failing after_all is only a warning\n%s%s", res.code, res.stdout, res.stderr)
	}
	if r := res.byID()["t1"]; r == nil || r.Verdict != results.VerdictPass {
		t.Errorf("t1: %+v, want a pass", r)
	}
	const want = "after.eval.yaml:4: workspace after_all hook failed"
	if !strings.Contains(res.stderr, "warning: "+want) || !strings.Contains(res.stderr, "cleanup went wrong") {
		t.Errorf("stderr does not warn of the after_all failure:\n%s", res.stderr)
	}
	if md := readFile(t, filepath.Join(res.outDir, "summary.md")); !strings.Contains(md, want) {
		t.Errorf("the summary does not show the after_all failure:\n%s", md)
	}
}
