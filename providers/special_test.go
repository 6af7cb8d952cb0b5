//go:build unix

package providers

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/targets"
)

// within fails the test when f has not returned after a generous wait: these reads used to
// block forever (a FIFO) or grow memory without bound (/dev/zero).
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("blocked reading a special file")
	}
}

// A .env that is a FIFO, a device or too large is reported, not waited on or read without end;
// a directory named .env (a Python virtualenv) is not a .env file and stays silent.
func TestLoadEnvSpecialFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		make    func(t *testing.T, path string)
		wantErr string // "" for no error
	}{
		{"link to /dev/zero", func(t *testing.T, p string) { mustLink(t, "/dev/zero", p) }, "symbolic link to /dev/zero) is a character device, not a regular file"},
		{"fifo", func(t *testing.T, p string) { mustFIFO(t, p) }, "is a named pipe (FIFO), not a regular file"},
		{"too large", func(t *testing.T, p string) {
			mustWrite(t, p, "A="+strings.Repeat("x", 8<<20)+"\n")
		}, "larger than the 8 MiB limit"},
		{"directory", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"regular", func(t *testing.T, p string) { mustWrite(t, p, "A=1\n") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := t.TempDir()
			envPath := filepath.Join(repo, ".env")
			tt.make(t, envPath)
			var err error
			var env targets.LookupEnv
			within(t, func() { env, err = targets.LoadEnv([]string{"REAL=1"}, repo, repo) })
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("targets.LoadEnv error %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), envPath)):
				t.Errorf("targets.LoadEnv error %v, want one naming %s and containing %q", err, envPath, tt.wantErr)
			}
			if v, ok := env("REAL"); !ok || v != "1" {
				t.Errorf("the real environment is lost: %q %v", v, ok)
			}
		})
	}
}

// A targets file that is a FIFO, a device or too large is an error diagnostic naming it.
func TestLoadTargetsSpecialFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		make    func(t *testing.T, path string)
		wantErr string
	}{
		{"link to /dev/zero", func(t *testing.T, p string) { mustLink(t, "/dev/zero", p) }, "symbolic link to /dev/zero) is a character device, not a regular file"},
		{"fifo", func(t *testing.T, p string) { mustFIFO(t, p) }, "is a named pipe (FIFO), not a regular file"},
		{"too large", func(t *testing.T, p string) {
			mustWrite(t, p, "targets:\n"+strings.Repeat("# padding\n", 1<<20))
		}, "larger than the 8 MiB limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "targets.yaml")
			tt.make(t, p)
			var tf *targets.File
			within(t, func() { tf = targets.LoadWithEnv(p, nil, "", "", nil) })
			if len(tf.Diagnostics) != 1 || !tf.Diagnostics[0].IsError() || !strings.Contains(tf.Diagnostics[0].Message, tt.wantErr) {
				t.Errorf("diagnostics %v, want one error containing %q", tf.Diagnostics, tt.wantErr)
			}
		})
	}
}

func mustLink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func mustFIFO(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vscodeFIFOCode is a stand-in `code` whose agent leaves a FIFO where the answer should be.
const vscodeFIFOCode = `#!/bin/sh
if [ "$1" = chat ]; then
  mkfifo "$(sed -n 's|.*file://||p' prompt.md | tail -n 1)"
fi
`

// The vscode provider reads files the user (workspace_template) and the agent (the response
// file) control; a FIFO in either place is an error, where it used to block the case forever.
func TestVSCodeSpecialFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		template bool // workspace_template is a FIFO
		want     string
	}{
		{"response file is a FIFO", false, "could not read the answer"},
		{"workspace_template is a FIFO", true, "could not read workspace_template"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code := filepath.Join(dir, "code")
			mustWrite(t, code, vscodeFIFOCode)
			if err := os.Chmod(code, 0o755); err != nil {
				t.Fatal(err)
			}
			s := map[string]any{"command": code, "subagent_root": filepath.Join(dir, "agents")}
			if tt.template {
				tmpl := filepath.Join(dir, "team.code-workspace")
				mustFIFO(t, tmpl)
				s["workspace_template"] = tmpl
			}
			p, _, err := New(apiTestTarget(targets.KindVSCode, s, nil), Options{Env: []string{"PATH=" + os.Getenv("PATH")}})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			p.(*vscodeProvider).pollEvery = 5 * time.Millisecond
			within(t, func() { _, err = p.Invoke(t.Context(), &Request{EvalID: "q1", Question: "hi"}) })
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "named pipe (FIFO)") {
				t.Errorf("Invoke error %v, want %q naming the FIFO", err, tt.want)
			}
		})
	}
}
