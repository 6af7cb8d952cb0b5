package proc

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cmd       Cmd
		wantOut   string
		wantErr   string
		wantExit  int
		wantTO    bool
		truncated bool
	}{
		{name: "stdin to stdout", cmd: Cmd{Argv: []string{"cat"}, Stdin: []byte("hello")}, wantOut: "hello"},
		{name: "exit code and stderr", cmd: Cmd{Argv: []string{"sh", "-c", "echo boom >&2; exit 3"}},
			wantErr: `command "echo boom >&2; exit 3" exited with code 3: boom`, wantExit: 3},
		{name: "not found", cmd: Cmd{Argv: []string{"/nonexistent/judge"}}, wantErr: "no such file", wantExit: -1},
		{name: "timeout", cmd: Cmd{Argv: []string{"sleep", "30"}, Timeout: 200 * time.Millisecond},
			wantErr: "timed out after 200ms", wantExit: -1, wantTO: true},
		{name: "output capped", cmd: Cmd{Argv: []string{"sh", "-c", "head -c 100000 /dev/zero"}, MaxOutput: 1000},
			wantOut: strings.Repeat("\x00", 1000), truncated: true},
		{name: "dir", cmd: Cmd{Argv: []string{"pwd"}, Dir: "/"}, wantOut: "/\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(t.Context(), tt.cmd)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("error %T is not *Error", err)
				}
				if pe.ExitCode != tt.wantExit {
					t.Errorf("exit code = %d, want %d", pe.ExitCode, tt.wantExit)
				}
				if got := errors.Is(err, ErrTimeout); got != tt.wantTO {
					t.Errorf("errors.Is(err, ErrTimeout) = %v, want %v", got, tt.wantTO)
				}
			}
			if res != nil && tt.wantOut != "" && string(res.Stdout) != tt.wantOut {
				t.Errorf("stdout = %q, want %q", res.Stdout, tt.wantOut)
			}
			if res != nil && res.StdoutTruncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", res.StdoutTruncated, tt.truncated)
			}
		})
	}
}

func TestRunLargeOutputBoundedMemory(t *testing.T) {
	t.Parallel()
	// 50 MB of output is cut at the cap, the command still succeeds.
	res, err := Run(t.Context(), Cmd{Argv: []string{"sh", "-c", "head -c 50000000 /dev/zero"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != DefaultMaxOutput || !res.StdoutTruncated {
		t.Fatalf("stdout len = %d truncated = %v, want %d and true", len(res.Stdout), res.StdoutTruncated, DefaultMaxOutput)
	}
}

func TestChildEnv(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/bin", "GITHUB_TOKEN=ghs_x", "INPUT_GITHUB-TOKEN=ghs_y", "KEEP=1", "OVER=old", "ACTIONS_CACHE_TOKEN=eyJz"}
	got := strings.Join(ChildEnv(env, []string{"OVER=new"}), " ")
	if want := "PATH=/bin KEEP=1 OVER=new"; got != want {
		t.Errorf("ChildEnv = %q, want %q", got, want)
	}
	got = strings.Join(ChildEnv(env, nil, "GITHUB_TOKEN"), " ")
	if !strings.Contains(got, "GITHUB_TOKEN=ghs_x") || strings.Contains(got, "ghs_y") {
		t.Errorf("ChildEnv with keep = %q", got)
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n += len(p)
	return 0, errors.New("disk full")
}

// A StdoutTee sees all of stdout; one that fails to write neither stops the child nor loses
// the captured output.
func TestRunStdoutTee(t *testing.T) {
	t.Parallel()
	var tee strings.Builder
	res, err := Run(t.Context(), Cmd{Argv: []string{"sh", "-c", "echo one; echo two"}, StdoutTee: &tee})
	if err != nil || tee.String() != "one\ntwo\n" || string(res.Stdout) != "one\ntwo\n" {
		t.Errorf("tee %q, stdout %q, err %v", tee.String(), res.Stdout, err)
	}
	bad := &failingWriter{}
	res, err = Run(t.Context(), Cmd{Argv: []string{"sh", "-c", "echo one; echo two"}, StdoutTee: bad})
	if err != nil || string(res.Stdout) != "one\ntwo\n" || bad.n != len("one\ntwo\n") {
		t.Errorf("with a failing tee: stdout %q, tee got %d bytes, err %v", res.Stdout, bad.n, err)
	}
}
