package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/gate"
)

// TestValidateTargetErrorsOnce checks that a targets-file problem found both by the loader
// and by building the provider is printed once, at the setting's position.
func TestValidateTargetErrorsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"s.yaml":    "evalcases:\n  - id: a\n    input: hi\n",
		"targets.yaml": `targets:
  - name: default
    provider: cli
  - name: bad-template
    provider: cli
    command_template: "run {NOPE}"
  - name: unknown
    provider: nosuch
  - name: hot
    provider: openai
    api_key: abcd1234
    model: m
    temperature: 9
  - name: cached
    provider: mock
    cache: sometimes
`,
	}
	out := validateInvalid(t, dir, files)
	for _, want := range []string{
		`targets.yaml:2:5: target "default": command_template: required setting is missing`,
		`targets.yaml:6:5: target "bad-template": command_template: unsupported placeholder {NOPE}`,
		`target "unknown": provider: unknown provider "nosuch"`,
		`targets.yaml:13:5: target "hot": temperature: want a number from 0 to 2`,
		`targets.yaml:16:5: target "cached": cache: want true or false, got sometimes`,
		"5 errors",
	} {
		if n := strings.Count(out, want); n != 1 {
			t.Errorf("%q printed %d times, want once:\n%s", want, n, out)
		}
	}
	if strings.Contains(out, "targets.yaml: targets.yaml:") || strings.Contains(out, "not supported here yet") {
		t.Errorf("an error is printed again from the provider, without its own position:\n%s", out)
	}
}

// TestValidateCodeJudges checks that validate flags a code judge that cannot run, at the
// evaluator's position, and accepts one that can.
func TestValidateCodeJudges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		".git/HEAD":    "ref: refs/heads/main\n",
		"targets.yaml": "targets:\n  - name: default\n    provider: mock\n",
		"judges/ok.py": "print('{\"score\": 1}')\n",
		"s.yaml": `evalcases:
  - id: a
    input: hi
    evaluators:
      - name: missing
        type: code_judge
        script: judges/nope.ts
      - name: fine
        type: code_judge
        script: [sh, -c, "exit 0"]
      - name: no-such-command
        type: code_judge
        script: [agentv-no-such-interpreter, judges/ok.py]
`,
	}
	out := validateInvalid(t, dir, files)
	for _, want := range []string{
		`s.yaml:7:17: code_judge "missing" script: cannot run here: script judges/nope.ts: not found`,
		`s.yaml:13:17: code_judge "no-such-command" script: cannot run here: command agentv-no-such-interpreter is not installed (not found on PATH)`,
		"2 errors",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"fine"`) {
		t.Errorf("a judge that can run is flagged:\n%s", out)
	}
}

// validateInvalid writes files into dir, runs `agentv validate s.yaml` there, expects exit 2
// (invalid) and returns what it printed on stdout.
func validateInvalid(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	c := &Command{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: dir}
	if code := c.Main(t.Context(), []string{"validate", "s.yaml"}); code != gate.ExitInvalid {
		t.Fatalf("exit %d, want %d\n%s%s", code, gate.ExitInvalid, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestIsTargetsFile: validate tells a targets file from an eval file by its top-level keys,
// read from the lines that start them (not by parsing the whole file), else by its name.
func TestIsTargetsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, file, text string
		want             bool
	}{
		{"targets list", "t.yaml", "# comment\ntargets:\n  - name: default\n    provider: mock\n", true},
		{"quoted key", "t.yml", "\"targets\":\n  - name: default\n", true},
		{"4.x suite with a targets key", "s.yaml", "execution:\n  targets: [a]\ntargets: x\ntests:\n  - id: a\n", false},
		{"2.5 suite", "s.yaml", "description: d\nevalcases:\n  - id: a\n    targets: no\n", false},
		{"nested targets only", "s.yaml", "execution:\n  targets:\n    - a\n", false},
		{"flow style, named targets", "targets.yaml", "{targets: [{name: a, provider: mock}]}\n", true},
		{"flow style, other name", "other.yaml", "{targets: [{name: a, provider: mock}]}\n", false},
		{"not YAML by extension", "targets.json", "targets:\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sub := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(sub, tt.file)
			if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := isTargetsFile(p); got != tt.want {
				t.Errorf("isTargetsFile(%s) = %v, want %v", tt.file, got, tt.want)
			}
		})
	}
}
