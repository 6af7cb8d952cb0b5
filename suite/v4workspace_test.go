package suite

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestV4Workspace checks how a 4.x suite's `workspace`, `execution.threshold` and
// `execution.targets` (suite and test) load: the template and before_all hook are read with
// paths against the eval file, unsupported keys warn, bad values are positioned errors.
func TestV4Workspace(t *testing.T) {
	t.Parallel()
	const test = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    execution: {targets: [x], threshold: 0.4}\n"
	tests := []struct {
		name, yaml string
		check      func(t *testing.T, root string, s *Suite)
		wantDiag   string // substring of a diagnostic, "" for none
	}{
		{name: "template and before_all", yaml: "workspace:\n  template: tpl\n  hooks:\n    before_all:\n      command: python3 setup.py  --fast\n      cwd: scripts\n      timeout_ms: 1500\nexecution:\n  targets: [x, y]\n  threshold: 0.6\n" + test,
			check: func(t *testing.T, root string, s *Suite) {
				w := s.Workspace
				if w == nil || w.Template != filepath.Join(root, "tpl") || w.BeforeAll == nil {
					t.Fatalf("workspace %+v", w)
				}
				h := w.BeforeAll
				if strings.Join(h.Command, "|") != "python3|setup.py|--fast" || h.Cwd != filepath.Join(root, "scripts") || h.Timeout != 1500*time.Millisecond {
					t.Errorf("hook %+v", h)
				}
				c := s.Cases[0]
				if *s.Threshold != 0.6 || strings.Join(s.Targets, ",") != "x,y" || *c.Threshold != 0.4 || strings.Join(c.Targets, ",") != "x" {
					t.Errorf("suite threshold %v targets %v, test threshold %v targets %v", *s.Threshold, s.Targets, *c.Threshold, c.Targets)
				}
			}},
		{name: "command list, hooks disabled", yaml: "workspace:\n  hooks:\n    enabled: false\n    before_all: {command: [sh, -c, 'exit 1']}\n" + test,
			check: func(t *testing.T, _ string, s *Suite) {
				if s.Workspace != nil {
					t.Errorf("workspace %+v, want none (hooks disabled, no template)", s.Workspace)
				}
			}},
		{name: "hook only", yaml: "workspace:\n  hooks:\n    before_all: {script: [sh, -c, 'true']}\n" + test,
			check: func(t *testing.T, _ string, s *Suite) {
				if s.Workspace == nil || s.Workspace.Template != "" || len(s.Workspace.BeforeAll.Command) != 3 {
					t.Errorf("workspace %+v", s.Workspace)
				}
			}},
		{name: "missing template", yaml: "workspace:\n  template: nothere\n" + test, wantDiag: `eval.yaml:2:13: workspace template "nothere" is not a directory`},
		{name: "hook without command", yaml: "workspace:\n  hooks:\n    before_all: {cwd: .}\n" + test, wantDiag: `eval.yaml:3:5: hook "before_all" needs "command"`},
		{name: "bad timeout", yaml: "workspace:\n  hooks:\n    before_all: {command: [x], timeout_ms: -5}\n" + test, wantDiag: `"timeout_ms" must be a number of milliseconds above 0, got "-5"`},
		{name: "later keys warn", yaml: "workspace:\n  template: tpl\n  isolation: per_test\n  hooks:\n    after_all: {command: [x]}\n" + test, wantDiag: `workspace "isolation" is not supported yet (ignored)`},
		{name: "every hook", yaml: "workspace:\n  hooks:\n    before_each: {command: [b]}\n    after_each: {command: [a, x], timeout_ms: 500}\n    after_all: {command: [z]}\n" + test,
			check: func(t *testing.T, _ string, s *Suite) {
				w := s.Workspace
				if w == nil || w.BeforeAll != nil || w.BeforeEach == nil || w.BeforeEach.Command[0] != "b" || w.AfterEach == nil ||
					len(w.AfterEach.Command) != 2 || w.AfterEach.Timeout != 500*time.Millisecond || w.AfterAll == nil || w.AfterAll.Command[0] != "z" {
					t.Errorf("workspace %+v", w)
				}
			}},
		{name: "hooks disabled", yaml: "workspace:\n  hooks:\n    enabled: false\n    before_each: {command: [b]}\n" + test,
			check: func(t *testing.T, _ string, s *Suite) {
				if s.Workspace != nil {
					t.Errorf("workspace %+v, want none", s.Workspace)
				}
			}},
		{name: "workspace file", yaml: "workspace: ws.yaml\n" + test, wantDiag: `a workspace file ("ws.yaml") is not supported yet`},
		{name: "bad test threshold", yaml: "tests:\n  - id: a\n    input: hi\n    criteria: ok\n    execution: {threshold: 2}\n", wantDiag: `execution "threshold" must be a number from 0 to 1, got "2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := writeTree(t, map[string]string{"eval.yaml": tt.yaml, "tpl/seed.txt": "x", "scripts/setup.py": ""})
			s := Load(filepath.Join(root, "eval.yaml"), LoadOptions{Cwd: root})
			all := formatDiags(s.Diagnostics)
			if tt.wantDiag == "" && all != "" || !strings.Contains(all, tt.wantDiag) {
				t.Fatalf("diagnostics:\n%s\nwant %q", all, tt.wantDiag)
			}
			if tt.check != nil {
				tt.check(t, root, s)
			}
		})
	}
}
