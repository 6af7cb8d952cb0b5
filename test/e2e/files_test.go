//go:build unix

package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/results"
)

// Files agentv reads that a user or a child process controls may be FIFOs or devices. Each run
// must end by itself with a clear message: a FIFO used to hang agentv past --timeout and
// signals, and targets.yaml or .env linked to /dev/zero grew memory without bound.
func TestSpecialFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const evalYAML = "evalcases:\n  - id: a\n    input: hi\n"
	tests := []struct {
		name     string
		files    map[string]string
		fifos    []string
		links    map[string]string // name → target
		args     []string
		wantCode int
		wantOut  []string
		wantRecs map[string]results.Verdict
	}{
		{
			name: "cli target makes its output file a FIFO",
			files: map[string]string{"s.yaml": evalYAML,
				"targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: mkfifo {OUTPUT_FILE}\n"},
			args: []string{"s.yaml", "--timeout", "5"}, wantCode: 3,
			wantOut:  []string{"could not read {OUTPUT_FILE}", "named pipe (FIFO), not a regular file"},
			wantRecs: map[string]results.Verdict{"a": results.VerdictError},
		},
		{
			name:  "targets.yaml linked to /dev/zero",
			files: map[string]string{"s.yaml": evalYAML},
			links: map[string]string{"targets.yaml": "/dev/zero"},
			args:  []string{"s.yaml"}, wantCode: 2,
			wantOut: []string{"could not read targets file", "symbolic link to /dev/zero) is a character device, not a regular file"},
		},
		{
			name:  ".env linked to /dev/zero",
			files: map[string]string{"s.yaml": evalYAML, "targets.yaml": mockTargets},
			links: map[string]string{".env": "/dev/zero"},
			args:  []string{"s.yaml"}, wantCode: 2,
			wantOut: []string{"could not read .env file", ".env (a symbolic link to /dev/zero) is a character device"},
		},
		{
			name:  "FIFO eval file",
			files: map[string]string{"targets.yaml": mockTargets},
			fifos: []string{"s.yaml"},
			args:  []string{"s.yaml"}, wantCode: 2,
			wantOut: []string{"s.yaml: could not read eval file: it is a named pipe (FIFO), not a regular file"},
		},
		{
			name:  "FIFO config file",
			files: map[string]string{"s.yaml": evalYAML, "targets.yaml": mockTargets},
			fifos: []string{".agentv.yaml"},
			args:  []string{"s.yaml"}, wantCode: 0,
			wantOut:  []string{".agentv.yaml is a named pipe (FIFO), not a regular file"},
			wantRecs: map[string]results.Verdict{"a": results.VerdictPass},
		},
		{
			name: "FIFO guideline",
			files: map[string]string{"targets.yaml": mockTargets, "s.yaml": "evalcases:\n  - id: a\n    input_messages:\n" +
				"      - role: user\n        content:\n          - {type: file, value: style.instructions.md}\n          - {type: text, value: hi}\n"},
			fifos: []string{"style.instructions.md"},
			args:  []string{"s.yaml"}, wantCode: 0,
			wantOut:  []string{"style.instructions.md is a named pipe (FIFO), not a regular file"},
			wantRecs: map[string]results.Verdict{"a": results.VerdictPass},
		},
		{
			name: "oversize targets.yaml",
			files: map[string]string{"s.yaml": evalYAML,
				"targets.yaml": mockTargets + strings.Repeat("# padding\n", 1<<20)},
			args: []string{"s.yaml"}, wantCode: 2,
			wantOut: []string{"targets.yaml is larger than the 8 MiB limit"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, tt.files)
			for _, f := range tt.fifos {
				if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			res, rss := runBounded(t, dir, append([]string{"eval"}, tt.args...)...)
			all := res.stdout + res.stderr
			if res.code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", res.code, tt.wantCode, all)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			// Memory stays bounded: /dev/zero used to be read until the machine ran out.
			if rss > maxRSS {
				t.Errorf("peak RSS %d MiB", rss>>20)
			}
			got := res.byID()
			for id, v := range tt.wantRecs {
				if r := got[id]; r == nil || r.Verdict != v {
					t.Errorf("%s: got %+v, want verdict %s", id, r, v)
				}
			}
			// Reports are written whatever happened, except for a run that is invalid before
			// any case ran: it leaves the previous run's files (here: none) and says so.
			for _, f := range []string{"results.jsonl", "junit.xml", "summary.md"} {
				_, err := os.Stat(filepath.Join(res.outDir, f))
				if ranNothing := tt.wantCode == 2; ranNothing != (err != nil) {
					t.Errorf("report %s: written %v, want %v (exit %d)", f, err == nil, !ranNothing, res.code)
				}
			}
			if tt.wantCode == 2 && !strings.Contains(all, "no results or reports written") {
				t.Errorf("an invalid run that ran nothing does not say its files were left alone:\n%s", all)
			}
		})
	}
}

// maxRSS is the most memory a run over special files may use; reading /dev/zero used to take
// gigabytes within seconds.
const maxRSS = 512 << 20

// runBounded runs agentv like agentv() but kills it after two minutes (the bug this guards
// against is a hang) or as soon as its resident memory passes maxRSS (polled on Linux), so a
// regression cannot take the machine's memory with it. It returns the peak RSS in bytes.
func runBounded(t *testing.T, dir string, args ...string) (runResult, int64) {
	t.Helper()
	out := t.TempDir()
	args = append(args, "--out", filepath.Join(out, "results.jsonl"))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentvBin, args...)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	overMemory := make(chan int64, 1)
	go watchRSS(cmd.Process, done, overMemory)
	err := cmd.Wait()
	close(done)
	select {
	case rss := <-overMemory:
		t.Fatalf("agentv used %d MiB of memory (killed)\n%s%s", rss>>20, tail(so.String(), 2000), tail(se.String(), 2000))
	default:
	}
	if ctx.Err() != nil {
		t.Fatalf("agentv did not finish within 2 minutes (killed)\n%s%s", so.String(), se.String())
	}
	res := runOutcome(t, err, so.String(), se.String(), out)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && runtime.GOOS == "linux" {
		rss = ru.Maxrss << 10 // kilobytes on Linux
	}
	return res, rss
}

// watchRSS kills p when its resident memory passes maxRSS, reporting it on over, until done.
// It reads /proc, so it watches on Linux only.
func watchRSS(p *os.Process, done <-chan struct{}, over chan<- int64) {
	status := fmt.Sprintf("/proc/%d/status", p.Pid)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		b, err := os.ReadFile(status)
		if err != nil {
			return
		}
		for line := range strings.Lines(string(b)) {
			if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
				if n<<10 > maxRSS {
					_ = p.Kill()
					over <- n << 10
					return
				}
			}
		}
	}
}

// A `**` glob does not follow a link back up the tree: the case runs once, where it used to run
// once per level the glob could descend.
func TestGlobSymlinkLoopRunsOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"targets.yaml": mockTargets, "evals/sub/s.yaml": "evalcases:\n  - id: a\n    input: hi\n"})
	if err := os.Symlink("..", filepath.Join(dir, "evals", "sub", "up")); err != nil {
		t.Fatal(err)
	}
	res, _ := runBounded(t, dir, "eval", "evals/**/*.yaml")
	if res.code != 0 || len(res.records) != 1 {
		t.Errorf("exit %d, %d records, want 0 and 1\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
}
