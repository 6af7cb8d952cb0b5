package e2e_test

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentv/action/results"
)

// outcomeLine finds the console's outcome line.
var outcomeLine = regexp.MustCompile(`(?m)^Outcome: ([A-Z]+)`)

func consoleOutcome(s string) string {
	if m := outcomeLine.FindStringSubmatch(s); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// slowTargets answer after 300 ms, two at a time: a 40-case run takes seconds, long enough
// to be interrupted or killed in the middle.
const slowTargets = "targets:\n  - name: default\n    provider: mock\n    delay_ms: 300\n    judge_target: judge\n    workers: 2\n" +
	"  - name: judge\n    provider: mock\n    response: '{\"score\":1}'\n"

// partialFile waits until a results file being written in dir holds at least n lines and
// returns its path.
func partialFile(t *testing.T, dir string, n int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob(filepath.Join(dir, "results.jsonl.*.partial"))
		if len(matches) == 1 {
			if b, err := os.ReadFile(matches[0]); err == nil && bytes.Count(b, []byte("\n")) >= n {
				return matches[0]
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no results file with %d lines being written in %s", n, dir)
	return ""
}

// startEval starts `agentv eval` in dir writing into out.
func startEval(t *testing.T, dir, out string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(agentvBin, append(append([]string{"eval"}, args...), "--out", filepath.Join(out, "results.jsonl"))...)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &buf
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("run agentv: %v", err)
	return -1
}

// `agentv report` on a run's results file reaches the outcome the run reached, whatever the
// run was: a pass, a fail, an error, an invalid run (duplicate ids), an interrupted one, or
// one killed in the middle (its results file has a start record and no end record).
func TestReportMatchesEval(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	tests := []struct {
		name     string
		files    map[string]string
		args     []string
		stop     syscall.Signal // interrupt the run once some cases finished; 0: let it end
		wantCode int            // the eval's exit code; -1: killed
		want     string         // the outcome both report
		wantOf   string         // the report's case count ("12 of 40"), if the run stopped early
	}{
		{name: "pass", files: map[string]string{"targets.yaml": mockTargets, "s.yaml": "evalcases:\n" + genCases(3)},
			args: []string{"s.yaml"}, wantCode: 0, want: "pass"},
		{name: "pass with failures allowed by the run's gate",
			files: map[string]string{"targets.yaml": strings.Replace(mockTargets, `"score": 1`, `"score": 0.5`, 1), "s.yaml": "evalcases:\n" + genCases(3)},
			args:  []string{"s.yaml", "--max-failures", "3"}, wantCode: 0, want: "pass"},
		{name: "fail", files: map[string]string{"targets.yaml": strings.Replace(mockTargets, `"score": 1`, `"score": 0.5`, 1), "s.yaml": "evalcases:\n" + genCases(3)},
			args: []string{"s.yaml"}, wantCode: 1, want: "fail"},
		{name: "error", files: map[string]string{"targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command_template: exit 3\n    judge_target: judge\n" +
			"  - name: judge\n    provider: mock\n    response: '{\"score\": 1}'\n", "s.yaml": "evalcases:\n" + genCases(2)},
			args: []string{"s.yaml"}, wantCode: 3, want: "error"},
		{name: "invalid: duplicate ids", files: map[string]string{"targets.yaml": mockTargets,
			"s.yaml": "evalcases:\n  - id: a\n    input: hi\n  - id: a\n    input: again\n  - id: b\n    input: hi\n"},
			args: []string{"s.yaml"}, wantCode: 2, want: "invalid"},
		{name: "cancelled", files: map[string]string{"targets.yaml": slowTargets, "s.yaml": "evalcases:\n" + genCases(40)},
			args: []string{"s.yaml"}, stop: syscall.SIGINT, wantCode: 2, want: "cancelled", wantOf: " of 40"},
		{name: "terminated", files: map[string]string{"targets.yaml": slowTargets, "s.jsonl": genJSONLCases(40)},
			args: []string{"s.jsonl"}, stop: syscall.SIGTERM, wantCode: 2, want: "cancelled", wantOf: " of 40"},
		{name: "killed", files: map[string]string{"targets.yaml": slowTargets, "s.yaml": "evalcases:\n" + genCases(40)},
			args: []string{"s.yaml"}, stop: syscall.SIGKILL, wantCode: -1, want: "invalid", wantOf: " of an unknown number of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, out := t.TempDir(), t.TempDir()
			writeFiles(t, dir, tt.files)
			// A previous run's results: replaced by a run that ends, kept by one that is killed.
			previous := filepath.Join(out, "results.jsonl")
			if err := os.WriteFile(previous, []byte("previous run\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd, buf := startEval(t, dir, out, tt.args...)
			if tt.stop != 0 {
				partialFile(t, out, 3) // the start record and two cases
				_ = cmd.Process.Signal(tt.stop)
			}
			err := cmd.Wait()
			resultsPath := previous
			if tt.wantCode < 0 {
				if err == nil || cmd.ProcessState.ExitCode() != -1 {
					t.Fatalf("eval was not killed: %v\n%s", err, buf)
				}
				if b, _ := os.ReadFile(previous); string(b) != "previous run\n" {
					t.Errorf("a killed run replaced the previous results: %q", b)
				}
				resultsPath = partialFile(t, out, 3) // what a killed run leaves
			} else {
				code := exitCode(t, err)
				if code != tt.wantCode || consoleOutcome(buf.String()) != tt.want {
					t.Fatalf("eval: exit %d outcome %q, want %d %q\n%s", code, consoleOutcome(buf.String()), tt.wantCode, tt.want, buf)
				}
				// An interrupted run says it is stopping as soon as it is told to.
				if stopping := strings.Contains(buf.String(), "agentv: stopping: "); stopping != (tt.stop != 0) {
					t.Errorf("eval said it was stopping: %v, want %v\n%s", stopping, tt.stop != 0, buf)
				}
				if m, _ := filepath.Glob(filepath.Join(out, "*.partial")); len(m) > 0 {
					t.Errorf("a run that ended left %v", m)
				}
			}
			checkRunRecords(t, resultsPath, tt.wantCode >= 0)

			repDir := t.TempDir()
			rep := agentv(t, dir, nil, "report", "--results", resultsPath, "--out-dir", repDir)
			wantReport := tt.wantCode
			if wantReport < 0 {
				wantReport = 2 // a killed run's file is invalid input: the run never finished
			}
			if rep.code != wantReport {
				t.Errorf("report: exit %d, want %d (eval: %d)\n%s%s", rep.code, wantReport, tt.wantCode, rep.stdout, rep.stderr)
			}
			if got := consoleOutcome(rep.stdout); got != tt.want {
				t.Errorf("report outcome %q, eval's %q\n%s", got, tt.want, rep.stdout)
			}
			// The summary's headline names the same outcome as the console (cancelled too).
			if summary, err := os.ReadFile(filepath.Join(repDir, "summary.md")); err == nil && !strings.Contains(string(summary), "AgentV evals: "+tt.want+"\n") {
				t.Errorf("report summary does not read %q:\n%s", tt.want, summary)
			}
			if tt.wantOf != "" {
				summary, _ := os.ReadFile(filepath.Join(repDir, "summary.md"))
				for name, s := range map[string]string{"console": rep.stdout, "summary": string(summary)} {
					if !strings.Contains(s, tt.wantOf) {
						t.Errorf("report %s does not say how many cases finished (%q):\n%s", name, tt.wantOf, s)
					}
				}
				if tt.wantCode >= 0 && !strings.Contains(buf.String(), tt.wantOf) {
					t.Errorf("eval console does not say how many cases finished (%q):\n%s", tt.wantOf, buf)
				}
			}
		})
	}
}

// checkRunRecords checks a results file written by a run: a start record first and, when the
// run ended, an end record last whose count matches the case records between them.
func checkRunRecords(t *testing.T, path string, ended bool) {
	t.Helper()
	var runs []*results.RunRecord
	cases := 0
	err := results.ScanFileLines(path, results.Visitor{
		Case: func(*results.Record, int) error { cases++; return nil },
		Run:  func(r *results.RunRecord, _ int) error { runs = append(runs, r); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 || runs[0].Kind != results.KindRunStart || runs[0].Format != results.RunFormat || runs[0].Gate == nil {
		t.Fatalf("no start record in %s: %+v", path, runs)
	}
	if !ended {
		if len(runs) != 1 {
			t.Errorf("a killed run's file has %d run records, want the start record only", len(runs))
		}
		return
	}
	end := runs[len(runs)-1]
	if len(runs) != 2 || end.Kind != results.KindRunEnd || end.Cases == nil || *end.Cases != cases || end.Planned == nil || end.Outcome == "" {
		t.Errorf("end record %+v does not match the %d case records", end, cases)
	}
}

func genJSONLCases(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(`{"id":"case-` + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `","input":"hi"}` + "\n")
	}
	return b.String()
}

// An output of the run (the results file or a report beside it) that is one of its inputs is
// refused before anything is written: exit 2, every file as it was. Outputs are compared as
// files, so a symbolic link or another spelling of the path is caught too.
func TestOutputIsInput(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const suite = "evalcases:\n  - id: a\n    input: hi\n"
	const withFile = "evalcases:\n  - id: a\n    input_messages:\n      - role: user\n        content:\n          - {type: text, value: hi}\n          - {type: file, value: notes/summary.md}\n"
	tests := []struct {
		name  string
		files map[string]string
		link  [2]string // symbolic link to make: name, target
		args  []string
	}{
		{name: "results file is the eval file", files: map[string]string{"targets.yaml": mockTargets, "cases.yaml": suite},
			args: []string{"eval", "cases.yaml", "--out", "cases.yaml"}},
		{name: "results file is a JSONL suite", files: map[string]string{"targets.yaml": mockTargets, "cases.jsonl": `{"id":"a","input":"hi"}` + "\n"},
			args: []string{"eval", "cases.jsonl", "--out", "cases.jsonl"}},
		{name: "results file is the JSONL sidecar", files: map[string]string{"targets.yaml": mockTargets, "cases.jsonl": `{"id":"a","input":"hi"}` + "\n", "cases.yaml": "description: d\n"},
			args: []string{"eval", "cases.jsonl", "--out", "cases.yaml"}},
		{name: "results file is the discovered targets file", files: map[string]string{"targets.yaml": mockTargets, "s.yaml": suite},
			args: []string{"eval", "s.yaml", "--out", "targets.yaml"}},
		{name: "results file is the --targets file", files: map[string]string{"t.yaml": mockTargets, "s.yaml": suite},
			args: []string{"eval", "s.yaml", "--targets", "t.yaml", "--out", "./sub/../t.yaml"}},
		{name: "results file is the .env file", files: map[string]string{"targets.yaml": mockTargets, "s.yaml": suite, ".env": "X=1\n"},
			args: []string{"eval", "s.yaml", "--out", ".env"}},
		{name: "results file is the .agentv config", files: map[string]string{"targets.yaml": mockTargets, "s.yaml": suite, ".agentv/config.yaml": "guideline_patterns: []\n"},
			args: []string{"eval", "s.yaml", "--out", ".agentv/config.yaml"}},
		{name: "results file is a link to the eval file", files: map[string]string{"targets.yaml": mockTargets, "s.yaml": suite},
			link: [2]string{"out/results.jsonl", "../s.yaml"}, args: []string{"eval", "s.yaml", "--out", "out/results.jsonl"}},
		{name: "eval file is a link to the results file", files: map[string]string{"targets.yaml": mockTargets, "real.yaml": suite},
			link: [2]string{"s.yaml", "real.yaml"}, args: []string{"eval", "s.yaml", "--out", "real.yaml"}},
		{name: "a report beside the results is a referenced file", files: map[string]string{"targets.yaml": mockTargets, "s.yaml": withFile, "notes/summary.md": "be kind\n"},
			args: []string{"eval", "s.yaml", "--out", "notes/results.jsonl"}},
		{name: "report writes over its results file", files: map[string]string{"out/summary.md": `{"eval_id":"a","score":1,"verdict":"pass"}` + "\n"},
			args: []string{"report", "--results", "out/summary.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			writeFiles(t, dir, tt.files)
			if tt.link[0] != "" {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, tt.link[0])), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(tt.link[1], filepath.Join(dir, tt.link[0])); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, dir)
			cmd := exec.Command(agentvBin, tt.args...)
			cmd.Dir, cmd.Env = dir, cleanEnv()
			outb, err := cmd.CombinedOutput()
			if code := exitCode(t, err); code != 2 || !strings.Contains(string(outb), "both an output and an input") {
				t.Errorf("exit %d, want 2 naming the collision\n%s", code, outb)
			}
			// The refusal names the flag of the command that refused, not another command's.
			flag := map[string]string{"eval": "(--out)", "report": "(--out-dir)"}[tt.args[0]]
			if !strings.Contains(string(outb), "write the results elsewhere "+flag) {
				t.Errorf("refusal does not suggest %s:\n%s", flag, outb)
			}
			if after := snapshot(t, dir); !maps.Equal(before, after) {
				t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// snapshot maps every file under dir (links as "-> target") to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			m[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		m[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
