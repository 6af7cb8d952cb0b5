package agentv5

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/suite"
	"github.com/agentv/action/suite/internal/suitetest"
)

// TestV5WorkspaceHooks: the top-level workspace's command hooks reach the suite's workspace;
// a hook with only `reset` runs nothing (testdata/v5/good/scenarios.eval.yaml).
func TestV5WorkspaceHooks(t *testing.T) {
	t.Parallel()
	s := loadGood(t, "scenarios.eval.yaml")
	ws := s.Workspace
	if ws == nil {
		t.Fatal("no workspace")
	}
	for _, tc := range []struct {
		name string
		hook *suite.Hook
		want []string
	}{
		{"before_all", ws.BeforeAll, []string{"python3", "setup.py"}},
		{"before_each", ws.BeforeEach, nil},
		{"after_each", ws.AfterEach, []string{"cleanup.sh", "--all"}},
		{"after_all", ws.AfterAll, nil},
	} {
		var got []string
		if tc.hook != nil {
			got = tc.hook.Command
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: command %q, want %q", tc.name, got, tc.want)
		}
	}
	if ws.BeforeAll != nil && ws.BeforeAll.Timeout != 5*time.Second {
		t.Errorf("before_all timeout %v, want 5s", ws.BeforeAll.Timeout)
	}
}

// TestV5InputFiles: a listed PROMPT.md is the input and leaves the other listed files; a
// test's own input_files replace the top-level ones (testdata/v5/good/input-files.eval.yaml).
func TestV5InputFiles(t *testing.T) {
	t.Parallel()
	s := loadGood(t, "input-files.eval.yaml")
	want := map[string][]string{"listed": {"prompt.txt"}, "skipped-defaults": nil}
	if len(s.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(s.Cases), len(want))
	}
	for _, c := range s.Cases {
		var got []string
		for _, f := range c.InputFiles {
			got = append(got, filepath.Base(f))
		}
		if !slices.Equal(got, want[c.ID]) {
			t.Errorf("%s: input files %q, want %q", c.ID, got, want[c.ID])
		}
		if c.Question != "Do the task in the listed files." {
			t.Errorf("%s: question %q, want PROMPT.md's text", c.ID, c.Question)
		}
	}
}

func loadGood(t *testing.T, name string) *suite.Suite {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join(testdata, "good", name))
	if err != nil {
		t.Fatal(err)
	}
	s := suite.Load(abs, suite.LoadOptions{Cwd: filepath.Dir(abs)})
	if suite.HasErrors(s.Diagnostics) {
		t.Fatalf("errors loading %s", name)
	}
	return s
}

// TestV5WorkspaceFile: a workspace file's relative cwd is in the file's folder, as 5.x
// resolves it; the eval file's own workspace's in the eval file's folder.
func TestV5WorkspaceFile(t *testing.T) {
	t.Parallel()
	const eval = "prompts: ['{{ q }}']\ntests:\n  - id: a\n    vars: {q: hi}\n    assert: [{type: latency, threshold: 1000}]\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // the before_all hook's cwd, a slash path under the tree
	}{
		{"file", map[string]string{
			"evals/x.eval.yaml":       "workspace: ws/workspace.yaml\n" + eval,
			"evals/ws/workspace.yaml": "hooks:\n  before_all: {command: [run], cwd: sub}\n"}, "evals/ws/sub"},
		{"inline", map[string]string{
			"evals/x.eval.yaml": "workspace:\n  hooks:\n    before_all: {command: [run], cwd: sub}\n" + eval}, "evals/sub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadTree(t, tc.files, "evals/x.eval.yaml")
			if suite.HasErrors(s.Diagnostics) {
				t.Fatalf("errors:\n%s", suitetest.FormatDiags(s.Diagnostics))
			}
			if s.Workspace == nil || s.Workspace.BeforeAll == nil {
				t.Fatal("no before_all hook")
			}
			if got := filepath.ToSlash(s.Workspace.BeforeAll.Cwd); !strings.HasSuffix(got, "/"+tc.want) {
				t.Errorf("cwd %q, want …/%s", got, tc.want)
			}
		})
	}
}

// TestV5KeyErrors: what 5.x refuses in these keys is a positioned error that says why.
func TestV5KeyErrors(t *testing.T) {
	t.Parallel()
	const test = "tests:\n  - id: a\n    vars: {q: hi}\n    assert: [{type: latency, threshold: 1000}]\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"input_files with prompts", "input_files: [a.txt]\nprompts: ['{{ q }}']\n" + test, `1:1: top-level "input_files" cannot be combined with "prompts"`},
		{"scenarios not a list", "prompts: ['{{ q }}']\nscenarios: {config: []}\n" + test, `2:12: "scenarios" must be a list`},
		{"scenario without tests", "prompts: ['{{ q }}']\nscenarios:\n  - config: [{}]\n" + test, `3:5: scenarios[0].tests must be a list of test fields, got nothing`},
		{"scenario row input", "prompts: ['{{ q }}']\nscenarios:\n  - config: [{}]\n    tests: [{input: hi}]\n" + test, `"input" is not accepted in AgentV 5.x`},
		{"workspace repos", "prompts: ['{{ q }}']\nworkspace: {repos: []}\n" + test, `2:13: workspace "repos" has been removed in AgentV 5.x: clone the repositories in environment.setup.command`},
		{"workspace file wrapped", "prompts: ['{{ q }}']\nworkspace: ws.yaml\n" + test, `holds a "workspace" mapping`},
		{"hook beside extension", "prompts: ['{{ q }}']\nextensions: ['file://h.mjs:beforeAll']\nworkspace: {hooks: {before_all: {command: [x]}}}\n" + test, `workspace hook "before_all" beside an extension of the same hook`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadTree(t, map[string]string{"x.eval.yaml": tc.src, "ws.yaml": "workspace: {hooks: {}}\n", "h.mjs": "export function beforeAll() {}\n"}, "x.eval.yaml")
			if got := suitetest.FormatDiags(s.Diagnostics); !strings.Contains(got, tc.want) || !suite.HasErrors(s.Diagnostics) {
				t.Errorf("diagnostics\n%s\nwant an error with %q", got, tc.want)
			}
		})
	}
}

// TestV5DetectScenarios: a file whose tests all come from `scenarios` is 5.x with only a
// top-level `target` to say so.
func TestV5DetectScenarios(t *testing.T) {
	t.Parallel()
	src := "target: t\nscenarios:\n  - config: [{vars: {q: hi}}]\n    tests: [{criteria: says hi}]\n"
	s := suitetest.LoadTree(t, map[string]string{"x.eval.yaml": src, "PROMPT.md": "Say hi.\n"}, "x.eval.yaml")
	if s.Dialect != suite.Dialect5 {
		t.Fatalf("dialect %q, want %q\n%s", s.Dialect, suite.Dialect5, suitetest.FormatDiags(s.Diagnostics))
	}
	if len(s.Cases) != 1 || s.Cases[0].ID != "scenario-1-1-1" || s.Cases[0].Question != "Say hi." {
		for _, c := range s.Cases {
			t.Logf("case %q question %q", c.ID, c.Question)
		}
		t.Errorf("want one case scenario-1-1-1 asking PROMPT.md's text\n%s", suitetest.FormatDiags(s.Diagnostics))
	}
}
