package agentv5

import (
	"github.com/agentv/action/suite"
	"github.com/agentv/action/suite/internal/suitetest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestV5Environment checks how a 5.x `environment` (suite or test, inline or file://) and
// `extensions` load into the suite's workspace, and the positioned error of each thing that
// cannot run.
func TestV5Environment(t *testing.T) {
	t.Parallel()
	const head = "prompts: ['{{ input }}']\n"
	const test = "tests:\n  - id: a\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n"
	const two = "tests:\n  - id: a\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n" +
		"  - id: b\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n"
	files := map[string]string{
		"env/recipe.yaml":   "type: host\nworkdir: ../work\nsetup: {command: [python3, prep.py]}\nenv: {MODE: file}\n",
		"env/wrapped.yaml":  "environment: {type: host, workdir: w}\n",
		"env/bad.yaml":      "type: host\nworkdir: w\nsetup: {command: []}\n",
		"hooks/h.mjs":       "export function beforeAll() {}\n",
		"hooks/t.ts":        "export function afterEach() {}\n",
		"hooks/readme.md":   "",
		"scripts/setup.py":  "",
		"env/sub/nothing.x": "",
	}
	tests := []struct {
		name, yaml string
		check      func(t *testing.T, root string, s *suite.Suite)
		wantDiag   string // substring of a diagnostic, "" for none
	}{
		{name: "host with setup and env", yaml: head + "environment:\n  type: host\n  workdir: work\n  setup:\n    command: [python3, scripts/setup.py, --fast]\n    timeout_ms: 1500\n  env: {GREETING: hi, EMPTY: ''}\n" + test,
			check: func(t *testing.T, root string, s *suite.Suite) {
				w := s.Workspace
				if w == nil || w.Workdir != filepath.Join(root, "work") || w.Template != "" || w.Setup == nil || w.BeforeAll != nil {
					t.Fatalf("workspace %+v", w)
				}
				h := w.Setup
				if strings.Join(h.Command, "|") != "python3|scripts/setup.py|--fast" || h.Cwd != root || h.Timeout != 1500*time.Millisecond {
					t.Errorf("setup %+v", h)
				}
				want := []string{"GREETING=hi", "EMPTY=", "AGENTV_ENVIRONMENT_WORKDIR=" + filepath.Join(root, "work")}
				if !slices.Equal(h.Env, want) {
					t.Errorf("setup env %q, want %q", h.Env, want)
				}
				if !strings.Contains(string(h.Stdin), `"workdir": "`+filepath.Join(root, "work")+`"`) || !strings.Contains(string(h.Stdin), `"type": "host"`) {
					t.Errorf("setup stdin %s", h.Stdin)
				}
			}},
		{name: "setup cwd is the workdir's", yaml: head + "environment: {type: host, workdir: /tmp/x, setup: {command: [make], cwd: sub}}\n" + test,
			check: func(t *testing.T, _ string, s *suite.Suite) {
				if s.Workspace.Setup.Cwd != "/tmp/x/sub" || s.Workspace.Setup.Timeout != 0 {
					t.Errorf("setup %+v", s.Workspace.Setup)
				}
			}},
		{name: "no setup", yaml: head + "environment: {type: host, workdir: .}\n" + test,
			check: func(t *testing.T, root string, s *suite.Suite) {
				if s.Workspace == nil || s.Workspace.Workdir != root || s.Workspace.Setup != nil {
					t.Errorf("workspace %+v", s.Workspace)
				}
			}},
		{name: "file recipe, paths of its folder", yaml: head + "environment: file://env/recipe.yaml\n" + test,
			check: func(t *testing.T, root string, s *suite.Suite) {
				w := s.Workspace
				if w == nil || w.Workdir != filepath.Join(root, "work") || w.Setup == nil || w.Setup.Cwd != filepath.Join(root, "env") || w.Setup.Env[0] != "MODE=file" {
					t.Fatalf("workspace %+v, setup %+v", w, w.Setup)
				}
			}},
		{name: "every test names the same file", yaml: head + "tests:\n  - id: a\n    environment: file://env/recipe.yaml\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n" +
			"  - id: b\n    environment: file://env/recipe.yaml\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n",
			check: func(t *testing.T, root string, s *suite.Suite) {
				if s.Workspace == nil || s.Workspace.Workdir != filepath.Join(root, "work") || len(s.Cases) != 2 {
					t.Errorf("workspace %+v, %d cases", s.Workspace, len(s.Cases))
				}
			}},
		{name: "a test's replaces the suite's", yaml: head + "environment: {type: host, workdir: a}\ntests:\n  - id: a\n    environment: {type: host, workdir: b}\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n",
			check: func(t *testing.T, root string, s *suite.Suite) {
				if s.Workspace == nil || s.Workspace.Workdir != filepath.Join(root, "b") {
					t.Errorf("workspace %+v", s.Workspace)
				}
			}},
		{name: "a test's rendered with its vars", yaml: head + "tests:\n  - id: a\n    environment: {type: host, workdir: '{{ dir }}'}\n    vars: {input: hi, dir: there}\n    assert: [{type: llm-rubric, value: ok}]\n",
			check: func(t *testing.T, root string, s *suite.Suite) {
				if s.Workspace == nil || s.Workspace.Workdir != filepath.Join(root, "there") {
					t.Errorf("workspace %+v", s.Workspace)
				}
			}},
		{name: "extensions", yaml: head + "extensions:\n  - file://hooks/h.mjs:beforeAll\n  - file://hooks/t.ts:afterEach\n  - file://hooks/h.mjs:afterEach\n" + test,
			check: func(t *testing.T, root string, s *suite.Suite) {
				w := s.Workspace
				if w == nil || w.Workdir != "" || w.BeforeEach != nil || w.AfterAll != nil || w.BeforeAll == nil || w.AfterEach == nil {
					t.Fatalf("workspace %+v", w)
				}
				if h := w.BeforeAll; h.Name != "beforeAll" || len(h.Command) != 0 || len(h.Extensions) != 1 || h.Extensions[0].Module != filepath.Join(root, "hooks", "h.mjs") || h.Line != 3 {
					t.Errorf("beforeAll %+v", h)
				}
				if h := w.AfterEach; h.Name != "afterEach" || len(h.Extensions) != 2 || filepath.Base(h.Extensions[0].Module) != "t.ts" || h.Extensions[1].Line != 5 {
					t.Errorf("afterEach %+v", h)
				}
			}},
		{name: "extensions in an environment", yaml: head + "environment: {type: host, workdir: w}\nextensions: [file://hooks/h.mjs:beforeAll]\n" + test,
			check: func(t *testing.T, root string, s *suite.Suite) {
				if w := s.Workspace; w == nil || w.Workdir != filepath.Join(root, "w") || w.BeforeAll == nil {
					t.Errorf("workspace %+v", w)
				}
			}},
		{name: "empty extensions", yaml: head + "extensions: []\n" + test,
			check: func(t *testing.T, _ string, s *suite.Suite) {
				if s.Workspace != nil {
					t.Errorf("workspace %+v, want none", s.Workspace)
				}
			}},

		{name: "docker", yaml: head + "environment: {type: docker, image: node:20, workdir: /app}\n" + test,
			wantDiag: `eval.yaml:2:21: the environment type "docker" is not supported: agentv runs the target and graders on this machine`},
		{name: "bad type", yaml: head + "environment: {type: vm, workdir: w}\n" + test, wantDiag: `eval.yaml:2:21: the environment type must be "host" or "docker", got "vm"`},
		{name: "no type", yaml: head + "environment: {workdir: w}\n" + test, wantDiag: `eval.yaml:2:14: the environment needs "type": host`},
		{name: "no workdir", yaml: head + "environment: {type: host}\n" + test, wantDiag: `eval.yaml:2:14: the environment needs "workdir"`},
		{name: "empty workdir", yaml: head + "environment: {type: host, workdir: ' '}\n" + test, wantDiag: `the environment workdir must be a path (a non-empty string)`},
		{name: "docker key on host", yaml: head + "environment: {type: host, workdir: w, image: x}\n" + test, wantDiag: `eval.yaml:2:39: the environment "image" is only read for type: docker`},
		{name: "unknown key", yaml: head + "environment: {type: host, workdir: w, workdirr: x}\n" + test, wantDiag: `eval.yaml:2:39: unknown key "workdirr" in the environment`},
		{name: "setup args", yaml: head + "environment: {type: host, workdir: w, setup: {command: [x], args: [y]}}\n" + test, wantDiag: `the environment setup.args is not supported: put the executable and its arguments in setup.command`},
		{name: "setup env", yaml: head + "environment: {type: host, workdir: w, setup: {command: [x], env: {A: b}}}\n" + test, wantDiag: `the environment setup.env is not supported: write the variables in the environment's env`},
		{name: "setup string command", yaml: head + "environment: {type: host, workdir: w, setup: {command: make all}}\n" + test, wantDiag: `eval.yaml:2:56: the environment setup.command must be a non-empty list`},
		{name: "setup without command", yaml: head + "environment: {type: host, workdir: w, setup: {cwd: x}}\n" + test, wantDiag: `the environment setup needs "command"`},
		{name: "setup timeout", yaml: head + "environment: {type: host, workdir: w, setup: {command: [x], timeout_ms: 0}}\n" + test, wantDiag: `setup.timeout_ms must be a number of milliseconds above 0, got "0"`},
		{name: "env not a string", yaml: head + "environment: {type: host, workdir: w, env: {PORT: 8080}}\n" + test, wantDiag: `the environment env PORT must be a string (quote it), got "8080"`},
		{name: "not a file reference", yaml: head + "environment: env/recipe.yaml\n" + test, wantDiag: `eval.yaml:2:14: the environment must be a recipe mapping (type: host, workdir, setup, env) or a file://`},
		{name: "missing file", yaml: head + "environment: file://env/none.yaml\n" + test, wantDiag: `eval.yaml:2:14: the environment recipe file env/none.yaml could not be read`},
		{name: "wrapped file", yaml: head + "environment: file://env/wrapped.yaml\n" + test, wantDiag: `env/wrapped.yaml:1:1: the environment recipe file env/wrapped.yaml must hold the recipe itself`},
		{name: "error inside the file", yaml: head + "environment: file://env/bad.yaml\n" + test, wantDiag: `env/bad.yaml:3:18: the environment setup.command must be a non-empty list`},
		{name: "test docker", yaml: head + "tests:\n  - id: a\n    environment: {type: docker, image: x, workdir: /a}\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n",
			wantDiag: `eval.yaml:4:25: test "a" environment type "docker" is not supported`},
		{name: "two environments", yaml: head + "environment: {type: host, workdir: a}\n" + two[:len(two)-len("  - id: b\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n")] +
			"  - id: b\n    environment: {type: host, workdir: b}\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n",
			wantDiag: `eval.yaml:8:18: test "b" environment differs from the environment (line 2): AgentV 5.3.1-next.1 runs one host environment per eval file`},
		{name: "some tests without", yaml: head + "tests:\n  - id: a\n    environment: {type: host, workdir: a}\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n" +
			"  - id: b\n    vars: {input: hi}\n    assert: [{type: llm-rubric, value: ok}]\n",
			wantDiag: `eval.yaml:4:18: test "a" environment is given to some tests only (test "b" has none)`},
		{name: "environment null", yaml: head + "environment:\n" + test, wantDiag: `eval.yaml:2:13: the environment must be a mapping with type: host and workdir, got null`},

		{name: "extensions not a list", yaml: head + "extensions: file://hooks/h.mjs:beforeAll\n" + test, wantDiag: `eval.yaml:2:13: "extensions" must be a list of file://path/to/hook.ts:HOOK entries`},
		{name: "agent-rules", yaml: head + "extensions: [agentv:agent-rules]\n" + test, wantDiag: `eval.yaml:2:14: extensions[0]: the built-in extension agentv:agent-rules is not supported yet`},
		{name: "agent-rules object", yaml: head + "extensions: [{id: agentv:agent-rules, skills: [s]}]\n" + test, wantDiag: `extensions[0]: the built-in extension agentv:agent-rules is not supported yet`},
		{name: "not file://", yaml: head + "extensions: [hooks/h.mjs:beforeAll]\n" + test, wantDiag: `extensions[0] must start with file://`},
		{name: "no hook", yaml: head + "extensions: ['file://hooks/h.mjs']\n" + test, wantDiag: `extensions[0] must name the hook after the path: file://path/to/hook.ts:beforeAll, got "file://hooks/h.mjs"`},
		{name: "bad hook", yaml: head + "extensions: ['file://hooks/h.mjs:setup']\n" + test, wantDiag: `extensions[0]: hook "setup" must be one of beforeAll, beforeEach, afterEach, afterAll`},
		{name: "missing module", yaml: head + "extensions: ['file://hooks/none.ts:beforeAll']\n" + test, wantDiag: `eval.yaml:2:14: extensions[0]: extension file hooks/none.ts not found`},
		{name: "not a module", yaml: head + "extensions: ['file://hooks/readme.md:beforeAll']\n" + test, wantDiag: `extensions[0]: hooks/readme.md is not a JavaScript or TypeScript module`},
		{name: "not a string", yaml: head + "extensions: [3]\n" + test, wantDiag: `extensions[0] must be a string file://path/to/hook.ts:HOOK, got "3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tree := map[string]string{"eval.yaml": tt.yaml}
			for k, v := range files {
				tree[k] = v
			}
			root := suitetest.WriteTree(t, tree)
			s := suite.Load(filepath.Join(root, "eval.yaml"), suite.LoadOptions{Cwd: root})
			all := suitetest.FormatDiags(s.Diagnostics)
			if tt.wantDiag == "" && all != "" || !strings.Contains(all, tt.wantDiag) {
				t.Fatalf("diagnostics:\n%s\nwant %q", all, tt.wantDiag)
			}
			if tt.wantDiag != "" && !suite.HasErrors(s.Diagnostics) {
				t.Errorf("want an error:\n%s", all)
			}
			if tt.check != nil {
				tt.check(t, root, s)
			}
		})
	}
}
