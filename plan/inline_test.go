package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/config"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
)

// TestInlineTargets: a target an eval file defines runs from its definition, a `targets`
// item's only when the targets file has no target of that id, the `target` mapping's always;
// its judge may be a targets file target; a bad definition is that job's error.
func TestInlineTargets(t *testing.T) {
	t.Parallel()
	withFile := t.TempDir()
	if err := os.WriteFile(filepath.Join(withFile, "targets.yaml"), []byte("targets:\n  - {id: a, provider: mock}\n  - {id: shared, provider: mock}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	def := func(name, settings string, own bool) suite.TargetDef {
		return suite.TargetDef{Name: name, Pos: suite.Position{File: "e.yaml", Line: 3, Col: 5}, Settings: []byte(settings), Overrides: own}
	}
	local := def("local", `{"id": "local", "provider": "mock", "grader_target": "a"}`, false)
	tests := []struct {
		name    string
		dir     string
		s       suite.Suite
		want    string // each job's target and the file it comes from, or its error's start
		judgeOf string // the judge of the first job's target, "" to skip
	}{
		{name: "matrix: the file's target wins over a targets item", dir: withFile,
			s:    suite.Suite{Targets: []string{"a", "local", "shared"}, TargetDefs: []suite.TargetDef{local, def("shared", `{"id": "shared", "provider": "mock"}`, false)}},
			want: "a@targets.yaml local@e.yaml shared@targets.yaml"},
		{name: "the target mapping wins over the file", dir: withFile,
			s:    suite.Suite{Target: "shared", TargetDefs: []suite.TargetDef{def("shared", `{"id": "shared", "provider": "mock"}`, true)}},
			want: "shared@e.yaml"},
		{name: "the judge of a defined target comes from the targets file", dir: withFile,
			s: suite.Suite{Target: "local", TargetDefs: []suite.TargetDef{local}}, want: "local@e.yaml", judgeOf: "a@targets.yaml"},
		{name: "without a targets file", dir: t.TempDir(),
			s: suite.Suite{Target: "own", TargetDefs: []suite.TargetDef{def("own", `{"id": "own", "provider": "mock"}`, true)}}, want: "own@e.yaml"},
		{name: "a bad definition errors its job", dir: withFile,
			s:    suite.Suite{Target: "bad", TargetDefs: []suite.TargetDef{def("bad", `{"id": "bad", "provider": "nope"}`, true)}},
			want: `error: target "bad" in e.yaml is invalid: e.yaml:3:5: target "bad": provider: unknown provider "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := New(Options{Settings: config.Settings{Timeout: 10e9, Cwd: tt.dir}, Redactor: &redact.Redactor{}})
			s := tt.s
			s.Path, s.Abs, s.Dir, s.RepoRoot = "e.yaml", filepath.Join(tt.dir, "e.yaml"), tt.dir, tt.dir
			c := &suite.Case{Suite: &s, ID: "x"}
			var got []string
			jobs := p.Jobs(&s, c, nil)
			for _, j := range jobs {
				if j.Err != nil {
					got = append(got, "error: "+j.Err.Error())
					continue
				}
				tg := j.Provider.Target()
				got = append(got, tg.Name+"@"+filepath.Base(tg.File))
			}
			if g := strings.Join(got, " "); g != tt.want && (!strings.HasPrefix(tt.want, "error: ") || !strings.HasPrefix(g, tt.want)) {
				t.Errorf("jobs %q, want %q", g, tt.want)
			}
			if tt.judgeOf != "" {
				j, err := p.Judge(jobs[0].Provider.Target(), "")
				if err != nil {
					t.Fatal(err)
				}
				if g := j.Target().Name + "@" + filepath.Base(j.Target().File); g != tt.judgeOf {
					t.Errorf("judge %q, want %q", g, tt.judgeOf)
				}
			}
		})
	}
}
