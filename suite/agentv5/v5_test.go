package agentv5

import (
	"encoding/json"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/suite/internal/suitetest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/internal/golden"
)

// testdata holds the 5.x files of these tests: suite's testdata/v5, beside the other
// dialects' files (their goldens name paths under it).
var testdata = filepath.Join("..", "testdata", "v5")

// TestV5Testdata loads the AgentV 5.x files of suite/testdata/v5: each file's diagnostics must
// match its .out; good files load without errors and their model must match .cases.json.
//
//	go test ./suite/agentv5 -run TestV5Testdata -update
func TestV5Testdata(t *testing.T) {
	t.Parallel()
	cwd, err := filepath.Abs("..") // suite: the files are named from there, as before the move
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"bad", "good"} {
		files, err := filepath.Glob(filepath.Join(testdata, kind, "*.eval.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no files in testdata/v5/%s: %v", kind, err)
		}
		for _, file := range files {
			t.Run(kind+"/"+filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				abs, err := filepath.Abs(file)
				if err != nil {
					t.Fatal(err)
				}
				s := suite.Load(abs, suite.LoadOptions{Cwd: cwd})
				base := strings.TrimSuffix(file, ".eval.yaml")
				golden.Check(t, base+".out", suitetest.Normalize(suitetest.FormatDiags(s.Diagnostics), s.RepoRoot))
				if s.Dialect != suite.Dialect5 && !strings.Contains(file, "mixed") {
					t.Errorf("dialect %q, want %q", s.Dialect, suite.Dialect5)
				}
				switch {
				case kind == "bad" && !suite.HasErrors(s.Diagnostics):
					t.Errorf("a bad file loaded without errors")
				case kind == "good" && suite.HasErrors(s.Diagnostics):
					t.Errorf("good file has errors:\n%s", suitetest.FormatDiags(s.Diagnostics))
				case kind == "good":
					golden.Check(t, base+".cases.json", suitetest.Normalize(dumpV5(t, s), s.RepoRoot))
				}
			})
		}
	}
}

// dumpV5 renders what a 5.x file sets in the model: dumpSuite's and the run settings.
func dumpV5(t *testing.T, s *suite.Suite) string {
	t.Helper()
	type out struct {
		Dialect, Name, Dataset, Target string
		Targets                        []string
		Threshold                      *float64
		Trials                         *suite.Trials
		TrialPassAt                    float64
		Grading                        suite.GradingRules
		Suite                          json.RawMessage
		TargetDefs                     []suite.TargetDef `json:",omitempty"`
		BudgetUSD                      float64           `json:",omitempty"`
		Workers                        int               `json:",omitempty"`
	}
	o := out{BudgetUSD: s.BudgetUSD, Workers: s.Workers, Dialect: s.Dialect, Name: s.Name, Dataset: s.Dataset, Target: s.Target, Targets: s.Targets, TargetDefs: s.TargetDefs,
		Threshold: s.Threshold, Trials: s.Trials, TrialPassAt: s.TrialPassAt, Grading: s.Grading,
		Suite: json.RawMessage(suitetest.DumpSuite(t, s))}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestV5Detect checks which dialect a file's keys select, and the one error for a file that
// mixes them.
func TestV5Detect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, dialect, wantErr string
	}{
		{"prompts", "prompts: x\ntests: []\n", suite.Dialect5, ""},
		{"default_test", "default_test: {vars: {a: 1}}\ntests: []\n", suite.Dialect5, ""},
		{"evaluate_options", "evaluate_options: {repeat: 2}\ntests: []\n", suite.Dialect5, ""},
		{"top-level targets", "targets: [a]\ntests: []\n", suite.Dialect5, ""},
		{"top-level threshold", "threshold: 0.5\ntests: []\n", suite.Dialect5, ""},
		{"assert without 4.x tests", "assert: [ok]\ntests:\n  - id: a\n    vars: {input: x}\n", suite.Dialect5, ""},
		{"assert with 4.x tests stays 4.x", "assert: [ok]\ntests:\n  - id: a\n    input: x\n", suite.Dialect4, ""},
		{"target with a test file stays 4.x", "target: m\ntests: cases.yaml\n", suite.Dialect4, ""},
		{"target in 2.5 stays 2.5", "target: m\nevalcases: []\n", suite.Dialect25, ""},
		{"4.x", "execution: {target: m}\ntests: []\n", suite.Dialect4, ""},
		{"mixed with 4.x", "prompts: x\nexecution: {}\ntests: []\n", "",
			`eval.yaml:2:1: the file mixes two dialects: "prompts" (line 1) (AgentV 5.x) and "execution" (line 2) (AgentV 4.x)`},
		{"mixed with 2.5", "evalcases: []\ndefault_test: {}\nthreshold: 1\n", "",
			`eval.yaml:1:1: the file mixes two dialects: "default_test" (line 2), "threshold" (line 3) (AgentV 5.x) and "evalcases" (line 1) (AgentV 2.5)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := suitetest.LoadYAMLString(t, tt.yaml)
			if tt.wantErr != "" {
				errs := 0
				for _, d := range s.Diagnostics {
					if d.IsError() {
						errs++
					}
				}
				if errs != 1 || !strings.Contains(suitetest.FormatDiags(s.Diagnostics), tt.wantErr) {
					t.Fatalf("diagnostics:\n%s\nwant one error with %q", suitetest.FormatDiags(s.Diagnostics), tt.wantErr)
				}
				return
			}
			if s.Dialect != tt.dialect {
				t.Errorf("dialect %q, want %q\n%s", s.Dialect, tt.dialect, suitetest.FormatDiags(s.Diagnostics))
			}
		})
	}
}

// FuzzLoadV5 feeds the 5.x front-end hostile files: it reports, never panics.
//
//	go test ./suite/agentv5 -run '^$' -fuzz FuzzLoadV5 -fuzztime 60s
func FuzzLoadV5(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(testdata, "*", "*.eval.yaml"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("prompts: &p [*p]\ntests: [{id: a, vars: {input: x}, assert: [y]}]\n"))
	f.Add([]byte("prompts: '{{ input }}'\ndefault_test: {vars: &v {input: *v}}\ntests: [{id: a, assert: [y]}]\n"))
	f.Add([]byte("prompts: '{{ a.b.c }}{{ vars }}{{ env.HOME }}'\ntests: [{id: '{{ x }}', vars: {x: [1], a: {b: {c: 1}}}, assert: [{type: not-not-x}]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "eval.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		suitetest.CheckInvariants(t, suite.Load(path, suite.LoadOptions{Cwd: dir, Workspace: dir}))
	})
}
