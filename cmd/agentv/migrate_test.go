package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/gate"
)

const migrateV4 = `# the suite
execution:
  target: default
tests:
  - id: a
    criteria: Says hi
    input: Say hi.   # the question
`

// TestMigrateCmd: where `agentv migrate` writes the 5.x file, what it says, and its exit codes.
func TestMigrateCmd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string // FILE is the v4 file's path, relative to the working directory
		file      string   // the eval file's content (migrateV4 when empty)
		code      int
		stdout    string // a part of stdout ("-" for none at all)
		stderr    string // a part of stderr
		fileAfter string // a part of evals/s.yaml afterwards ("" for unchanged)
		outFile   string // a part of out.yaml afterwards
		noOutFile bool
	}{
		{name: "stdout", args: []string{"evals/s.yaml"}, code: 0, stdout: "target: default\n",
			stderr: "evals/s.yaml:2: execution removed"},
		{name: "write", args: []string{"--write", "evals/s.yaml"}, code: 0, stdout: "-",
			stderr: "evals/s.yaml:7: input → vars.input", fileAfter: "    vars:\n      input: Say hi. # the question\n"},
		{name: "write after the file", args: []string{"evals/s.yaml", "--write"}, code: 0, stdout: "-", fileAfter: "prompts:"},
		{name: "out", args: []string{"-o", "out.yaml", "evals/s.yaml"}, code: 0, stdout: "-", outFile: "# the suite\ntarget: default\n"},
		{name: "already 5.x", args: []string{"--write", "evals/s.yaml"}, file: "prompts: ['{{ input }}']\ntests:\n  - vars: {input: hi}\n",
			code: 0, stdout: "-", stderr: "already written for AgentV 5.x: nothing to change"},
		{name: "both destinations", args: []string{"--write", "-o", "out.yaml", "evals/s.yaml"}, code: gate.ExitInvalid, stdout: "-",
			stderr: "--write and -o both", noOutFile: true},
		{name: "no file", args: nil, code: gate.ExitInvalid, stderr: "give exactly one eval or targets file, got 0"},
		{name: "two files", args: []string{"evals/s.yaml", "evals/s.yaml"}, code: gate.ExitInvalid, stderr: "got 2"},
		{name: "missing", args: []string{"evals/nope.yaml"}, code: gate.ExitInvalid, stderr: "evals/nope.yaml: no such file"},
		{name: "not yaml", args: []string{"evals/s.yaml"}, file: "tests: [\n", code: gate.ExitInvalid, stdout: "-",
			stderr: "agentv migrate: evals/s.yaml:2: not valid YAML"},
		{name: "not an eval file", args: []string{"--write", "evals/s.yaml"}, file: "kind: config\n", code: gate.ExitInvalid, stdout: "-",
			stderr: `evals/s.yaml:1: not an AgentV eval or targets file`},
		{name: "unknown flag", args: []string{"--wirte", "evals/s.yaml"}, code: gate.ExitInvalid, stderr: "did you mean --write?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := tt.file
			if src == "" {
				src = migrateV4
			}
			evalPath := filepath.Join(dir, "evals", "s.yaml")
			if err := os.MkdirAll(filepath.Dir(evalPath), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(evalPath, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: dir}
			code := c.Main(t.Context(), append([]string{"migrate"}, tt.args...))
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			switch {
			case tt.stdout == "-" && stdout.Len() > 0:
				t.Errorf("stdout should be empty, got:\n%s", stdout.String())
			case tt.stdout != "-" && !strings.Contains(stdout.String(), tt.stdout):
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr.String())
			}
			after, err := os.ReadFile(evalPath)
			if err != nil {
				t.Fatal(err)
			}
			if tt.fileAfter == "" && string(after) != src {
				t.Errorf("the eval file changed:\n%s", after)
			} else if !strings.Contains(string(after), tt.fileAfter) {
				t.Errorf("the eval file lacks %q:\n%s", tt.fileAfter, after)
			}
			out, err := os.ReadFile(filepath.Join(dir, "out.yaml"))
			switch {
			case tt.outFile != "" && !strings.Contains(string(out), tt.outFile):
				t.Errorf("out.yaml lacks %q (%v):\n%s", tt.outFile, err, out)
			case tt.noOutFile && err == nil:
				t.Errorf("out.yaml was written")
			}
			if fi, err := os.Stat(evalPath); err != nil {
				t.Error(err)
			} else if fi.Mode().Perm() != 0o600 {
				t.Errorf("the eval file's permissions changed to %v", fi.Mode().Perm())
			}
			if partials, _ := filepath.Glob(filepath.Join(dir, "*", "*.partial")); len(partials) > 0 {
				t.Errorf("left behind: %v", partials)
			}
		})
	}
}
