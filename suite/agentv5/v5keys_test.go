package agentv5

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentv/action/suite"
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
