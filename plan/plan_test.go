package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/config"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// TestJudgeResolution checks the order a judge target is chosen in: the evaluator's own
// target, else the --judge-target override (with --model, 4.x's built-in grader), else the
// target's judge_target, else the target.
func TestJudgeResolution(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "targets.yaml")
	yaml := `targets:
  - name: agent
    provider: mock
    judge_target: configured
  - name: plain
    provider: mock
  - name: configured
    provider: mock
  - name: override
    provider: mock
  - name: own
    provider: mock
  - name: agentv
    provider: mock
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target, flag, evaluator, want string
		model, wantKind                     string
	}{
		{"target's judge_target", "agent", "", "", "configured", "", ""},
		{"target itself", "plain", "", "", "plain", "", ""},
		{"override beats judge_target", "agent", "override", "", "override", "", ""},
		{"override without judge_target", "plain", "override", "", "override", "", ""},
		{"evaluator's target beats override", "agent", "override", "own", "own", "", ""},
		{"evaluator's target beats judge_target", "agent", "", "own", "own", "", ""},
		{"built-in grader beats judge_target", "agent", "agentv", "", "agentv", "openai:gpt-5-mini", targets.KindOpenAI},
		{"built-in grader beats an entry named agentv", "plain", "agentv", "", "agentv", "anthropic:claude-sonnet-4-5", targets.KindAnthropic},
		{"evaluator's target beats the built-in grader", "agent", "agentv", "own", "own", "openai:gpt-5-mini", targets.KindMock},
		{"agentv without --model is an entry's name", "plain", "agentv", "", "agentv", "", targets.KindMock},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			red := &redact.Redactor{}
			env := []string{"OPENAI_API_KEY=sk-plan-openai-0123456789", "ANTHROPIC_API_KEY=sk-plan-anthropic-0123456789"}
			tf := targets.LoadWithEnv(path, env, "", "", red)
			if len(tf.Diagnostics) > 0 {
				t.Fatalf("targets file: %v", tf.Diagnostics)
			}
			p := New(Options{Settings: config.Settings{JudgeTarget: tt.flag, JudgeModel: tt.model, Timeout: 10e9}, Redactor: red})
			p.files[tf.Abs] = tf
			tg, err := tf.Find(tt.target)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := p.Judge(tg, tt.evaluator)
			if err != nil {
				t.Fatal(err)
			}
			if got := pr.Target().Name; got != tt.want {
				t.Errorf("judge = %s, want %s", got, tt.want)
			}
			if got := pr.Target().Kind; tt.wantKind != "" && got != tt.wantKind {
				t.Errorf("judge of kind %s, want %s", got, tt.wantKind)
			}
		})
	}
}

// TestCaseWarnings checks that a case's warnings reach its record with display paths and
// without the case id (the record names the case), and that errors and warnings of no case
// stay out.
func TestCaseWarnings(t *testing.T) {
	t.Parallel()
	ds := []suite.Diagnostic{
		{File: "/ws/evals/a.yaml", Line: 4, Kind: "template", CaseID: "one", Message: "unknown placeholder"},
		{File: "/ws/evals/a.yaml", Line: 9, Severity: suite.SeverityError, CaseID: "one", Message: "bad"},
		{File: "/ws/evals/a.yaml", Line: 1, Message: "file-wide"},
	}
	got := CaseWarnings(ds, func(p string) string { return strings.TrimPrefix(p, "/ws/") })
	want := map[string][]suite.Diagnostic{
		"one": {{File: "evals/a.yaml", Line: 4, Kind: "template", Message: "unknown placeholder"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CaseWarnings (-want +got):\n%s", diff)
	}
}

// TestJobsPerTarget checks the targets a case runs on: the suite's one target, each of the
// suite's `execution.targets` (those a test's own targets keep), or --target alone; a test
// whose targets keep none gets one job that cannot run, saying why. Runs counts them.
func TestJobsPerTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	targets := "targets:\n  - {name: default, provider: mock}\n  - {name: a, provider: mock}\n  - {name: b, provider: mock}\n  - {name: c, provider: mock}\n"
	if err := os.WriteFile(filepath.Join(dir, "targets.yaml"), []byte(targets), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		flag         string
		suiteTargets []string
		suiteTarget  string
		caseTargets  []string
		want         string // target names of the jobs, or "error: ..." for one that cannot run
	}{
		{name: "default", want: "default"},
		{name: "suite target", suiteTarget: "b", want: "b"},
		{name: "one suite target wins over target", suiteTarget: "b", suiteTargets: []string{"c"}, want: "c"},
		{name: "matrix", suiteTargets: []string{"a", "b", "c"}, want: "a b c"},
		{name: "matrix kept by the test", suiteTargets: []string{"a", "b", "c"}, caseTargets: []string{"c", "a", "z"}, want: "a c"},
		{name: "test targets alone do nothing", caseTargets: []string{"c"}, suiteTarget: "b", want: "b"},
		{name: "--target picks one", flag: "b", suiteTargets: []string{"a", "c"}, want: "b"},
		{name: "none kept", suiteTargets: []string{"a", "b"}, caseTargets: []string{"z"},
			want: "error: the test's execution targets (z) name none of the suite's targets (a, b), so it runs nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := New(Options{Settings: config.Settings{TargetsPath: filepath.Join(dir, "targets.yaml"), Target: tt.flag, Timeout: 10e9, Cwd: dir},
				Redactor: &redact.Redactor{}})
			s := &suite.Suite{Path: "e.yaml", Dir: dir, Targets: tt.suiteTargets, Target: tt.suiteTarget}
			c := &suite.Case{Suite: s, ID: "x", Targets: tt.caseTargets}
			var got []string
			for _, j := range p.Jobs(s, c, nil) {
				if j.Err != nil {
					got = append(got, "error: "+j.Err.Error())
					continue
				}
				got = append(got, j.Provider.Target().Name)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("jobs on %q, want %q", g, tt.want)
			}
			if n := p.Runs(s, c); n != len(got) {
				t.Errorf("Runs = %d, want %d", n, len(got))
			}
		})
	}
}

// TestDependencyLeftOut: a test chosen by id whose dependency the choice leaves out makes
// every chosen test of its file one error job, as 4.42.4 refuses the file; keeping the
// dependency, or choosing no test by id, plans as usual.
func TestDependencyLeftOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "targets.yaml"), []byte("targets:\n  - {name: default, provider: mock}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, evalID string
		testIDs      []string
		want         string // per chosen case: "id:default" or "id:error"
	}{
		{name: "no choice", want: "a:default b:default c:default"},
		{name: "dependency kept", evalID: "{a,b}", want: "a:default b:default"},
		{name: "dependency left out by --eval-id", evalID: "{b,c}", want: "b:error c:error"},
		{name: "dependency left out by --test-id", testIDs: []string{"b"}, want: "b:error"},
		{name: "only the dependency", evalID: "a", want: "a:default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := Options{Settings: config.Settings{TargetsPath: filepath.Join(dir, "targets.yaml"), EvalID: tt.evalID, Timeout: 10e9, Cwd: dir},
				Redactor: &redact.Redactor{}}
			if tt.testIDs != nil {
				opts.ByID = func(c *suite.Case) bool { return slices.Contains(tt.testIDs, c.ID) }
				opts.Select = opts.ByID
			}
			p := New(opts)
			s := &suite.Suite{Path: "e.yaml", Dir: dir, Dependencies: true}
			s.Cases = []*suite.Case{{Suite: s, ID: "a"}, {Suite: s, ID: "b", DependsOn: []string{"a"}}, {Suite: s, ID: "c"}}
			p.CheckSelection(s, s.Cases) // as the run pipeline does before planning a parsed file
			var jobs []*Job
			for _, c := range s.Cases {
				jobs = append(jobs, p.Jobs(s, c, nil)...)
			}
			var got []string
			for _, j := range jobs {
				switch {
				case j.Err != nil && strings.Contains(j.Err.Error(), `test "b" depends on "a", which --eval-id or --test-id leaves out`):
					got = append(got, j.Case.ID+":error")
				case j.Err != nil:
					t.Errorf("%s: %v", j.Case.ID, j.Err)
				default:
					got = append(got, j.Case.ID+":"+j.Provider.Target().Name)
				}
				if n := p.Runs(s, j.Case); n != 1 {
					t.Errorf("Runs(%s) = %d, want 1", j.Case.ID, n)
				}
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("jobs %q, want %q", g, tt.want)
			}
		})
	}
}

// TestOnSeveralTargetsNamesItsFile: a matrix file whose case runs on no target this time (a
// rerun that carries every target's record over) is marked as on several targets, and the
// file planned before it, on one target, is not.
func TestOnSeveralTargetsNamesItsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	targets := "targets:\n  - {name: default, provider: mock}\n  - {name: a, provider: mock}\n  - {name: b, provider: mock}\n"
	if err := os.WriteFile(filepath.Join(dir, "targets.yaml"), []byte(targets), 0o644); err != nil {
		t.Fatal(err)
	}
	p := New(Options{Settings: config.Settings{TargetsPath: filepath.Join(dir, "targets.yaml"), Timeout: 10e9, Cwd: dir},
		Redactor: &redact.Redactor{}, SelectOn: func(c *suite.Case, _ string) bool { return c.ID != "carried" }})
	one := &suite.Suite{Path: "one.yaml", Dir: dir}
	if jobs := p.Jobs(one, &suite.Case{Suite: one, ID: "x"}, nil); len(jobs) != 1 || jobs[0].Err != nil {
		t.Fatalf("one.yaml: jobs %v", jobs)
	}
	matrix := &suite.Suite{Path: "matrix.yaml", Dir: dir, Targets: []string{"a", "b"}}
	if jobs := p.Jobs(matrix, &suite.Case{Suite: matrix, ID: "carried"}, nil); len(jobs) != 0 {
		t.Fatalf("matrix.yaml: %d jobs, want none", len(jobs))
	}
	if p.OnSeveralTargets("one.yaml") {
		t.Error("one.yaml runs on one target, but OnSeveralTargets says several")
	}
	if !p.OnSeveralTargets("matrix.yaml") {
		t.Error("matrix.yaml runs on two targets, but OnSeveralTargets says one")
	}
}
