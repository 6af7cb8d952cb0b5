package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/golden"
)

// Scenarios are end-to-end tests written as data: each folder of testdata/e2e holds
//
//	scenario.yaml  what to run (below)
//	files/         the repository the commands run in (a .git is added)
//	expected.txt   the golden record of every step: the command, its exit code, its output,
//	               its results and the report files it names, with what changes from run to
//	               run (temporary paths, durations, timestamps) replaced by placeholders.
//
// `go test ./test/e2e -run TestScenarios -update` rewrites expected.txt; review the diff.
type scenario struct {
	// Requires names the programs the scenario needs (skipped without them).
	Requires []string `yaml:"requires"`
	Steps    []struct {
		// Run is the command line after `agentv`, split on spaces. An eval writes its results
		// to $OUT/results.jsonl (the --out flag is added) unless it names --out or -o itself.
		// $OUT<n> names step n's results folder, so that a step can report on an earlier run.
		Run string `yaml:"run"`
		// Env is added to the step's environment (PATH=/nonexistent hides every runtime).
		Env map[string]string `yaml:"env"`
		// Dir is the folder the step runs in, relative to the repository (created if needed):
		// where a command writes when given no output folder.
		Dir string `yaml:"dir"`
		// Parallel says cases finish in any order (several targets, or workers): the progress
		// lines are sorted and their counters written [k/N].
		Parallel bool `yaml:"parallel"`
		// Files are files the step wrote, compared after normalising: $OUT/… in the results
		// folder ($OUT<n>/… in step n's), others relative to the repository. A .jsonl file of
		// JSON lines is written as the step's results are (its records sorted, volatile keys out).
		Files []string `yaml:"files"`
	} `yaml:"steps"`
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	root := filepath.Join("testdata", "e2e")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			runScenario(t, filepath.Join(root, e.Name()))
		})
	}
}

func runScenario(t *testing.T, dir string) {
	raw, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var sc scenario
	if err := yaml.Unmarshal(raw, &sc); err != nil {
		t.Fatalf("%s: %v", filepath.Join(dir, "scenario.yaml"), err)
	}
	requireTools(t, sc.Requires...)
	ws := t.TempDir()
	// A scenario that needs no files has no files/ folder (git keeps no empty folder).
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(dir, "files"))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	var got strings.Builder
	var outs []string
	for i, step := range sc.Steps {
		out := t.TempDir()
		outs = append(outs, out)
		args := strings.Fields(step.Run)
		if len(args) > 0 && args[0] == "eval" && !slices.Contains(args, "--out") && !slices.Contains(args, "-o") {
			args = append(args, "--out", filepath.Join(out, "results.jsonl"))
		}
		expand := func(s string) string {
			s = stepOut.ReplaceAllStringFunc(s, func(m string) string {
				n, _ := strconv.Atoi(m[len("$OUT"):])
				if n < 1 || n > i {
					t.Fatalf("step %d: %s names no earlier step", i+1, m)
				}
				return outs[n-1]
			})
			return strings.ReplaceAll(s, "$OUT", out)
		}
		for j, a := range args {
			args[j] = expand(a)
		}
		cmd := exec.Command(agentvBin, args...)
		cmd.Dir = filepath.Join(ws, step.Dir)
		if err := os.MkdirAll(cmd.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cleanEnv(), "NO_COLOR=1")
		for _, k := range slices.Sorted(maps.Keys(step.Env)) {
			cmd.Env = append(cmd.Env, k+"="+step.Env[k])
		}
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		code := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("step %d: %v", i+1, err)
			}
			code = ee.ExitCode()
		}
		norm := normalizer(ws, outs)
		if i > 0 {
			got.WriteString("\n")
		}
		fmt.Fprintf(&got, "%s\nexit %d\n", strings.TrimSpace("$ agentv "+step.Run), code)
		section(&got, "stdout", norm(so.String()))
		stderr := norm(se.String())
		if step.Parallel {
			stderr = sortProgress(stderr)
		}
		section(&got, "stderr", stderr)
		if b, err := os.ReadFile(filepath.Join(out, "results.jsonl")); err == nil {
			stable, ok := stableRecords(b)
			if !ok {
				t.Fatalf("step %d: $OUT/results.jsonl is not JSON lines:\n%s", i+1, b)
			}
			section(&got, "results", norm(stable))
		}
		for _, f := range step.Files {
			p := expand(f)
			if !filepath.IsAbs(p) {
				p = filepath.Join(ws, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				section(&got, f, fmt.Sprintf("(missing: %v)\n", err))
				continue
			}
			if strings.HasSuffix(f, ".jsonl") {
				if stable, ok := stableRecords(b); ok {
					section(&got, f, norm(stable))
					continue
				}
			}
			section(&got, f, norm(string(b)))
		}
	}
	golden.Check(t, filepath.Join(dir, "expected.txt"), got.String())
}

func section(b *strings.Builder, name, body string) {
	if body == "" {
		return
	}
	fmt.Fprintf(b, "--- %s\n%s", name, body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteString("\n")
	}
}

// sortProgress sorts the progress lines of cases that finished in any order, in place, and
// blanks their counters, which count in the order they finished.
func sortProgress(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var at []int
	var progress []string
	for i, l := range lines {
		if progressLine.MatchString(l) {
			at = append(at, i)
			progress = append(progress, progressCount.ReplaceAllString(l, "[k/"))
		}
	}
	slices.Sort(progress)
	for j, i := range at {
		lines[i] = progress[j]
	}
	return strings.Join(lines, "")
}

var progressCount = regexp.MustCompile(`^\[\d+/`)

// volatile matches what differs between two runs of the same scenario: durations as the
// console and the reports print them, ISO timestamps, the temporary workspaces of a suite, the
// run id that workspace hooks are told and the names of {PROMPT_FILE}s.
var volatile = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`(?:/[^\s"'/]+)*/agentv-workspace-\d+`), "<tmp>/agentv-workspace-<n>"},
	{regexp.MustCompile(`("eval_run_id": ?")[^"]+`), "${1}<run-id>"},
	{regexp.MustCompile(`(?:/[^\s"'/]+)*/agentv-prompt-file-\d+-[a-z0-9]+`), "<tmp>/agentv-prompt-file-<n>-<id>"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "<time>"},
	{regexp.MustCompile(`\btime="\d+(\.\d+)?"`), `time="<dur>"`},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s|m)\b`), "<dur>"},
	{regexp.MustCompile(`\b(\d+m)?\d+(\.\d+)?s\b`), "<dur>"},
}

// stepOut is how a step names an earlier step's results folder.
var stepOut = regexp.MustCompile(`\$OUT\d+`)

// normalizer replaces the scenario's temporary folders by $REPO, $OUT (the step's own results
// folder; the last of outs) and $OUT<n> (step n's), and volatile text by placeholders.
func normalizer(ws string, outs []string) func(string) string {
	return func(s string) string {
		for n, out := range outs {
			name := "$OUT" + strconv.Itoa(n+1)
			if n == len(outs)-1 {
				name = "$OUT"
			}
			s = strings.ReplaceAll(s, out, name)
		}
		s = strings.ReplaceAll(s, ws, "$REPO")
		for _, v := range volatile {
			s = v.re.ReplaceAllString(s, v.repl)
		}
		return s
	}
}

// volatileKeys are the fields of a results record that differ between runs.
// A baseline's sha256 is of a results file, whose records hold timestamps.
var volatileKeys = map[string]bool{"timestamp": true, "duration_ms": true, "started_at": true, "finished_at": true, "run_id": true, "sha256": true}

// stableRecords rewrites a results file with its records in a fixed order (by kind, dataset,
// id, target and trial) and without the fields that differ between runs, each indented,
// keys sorted; false if a line is not a JSON object.
func stableRecords(raw []byte) (string, bool) {
	type line struct {
		key  string
		text string
	}
	var lines []line
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(l, &v); err != nil {
			return "", false
		}
		dropVolatile(v)
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", false
		}
		key := fmt.Sprint(v["record"], "\x00", v["dataset"], "\x00", v["eval_id"], "\x00", v["target"], "\x00", v["trial"])
		lines = append(lines, line{key, string(b)})
	}
	slices.SortStableFunc(lines, func(a, b line) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.String(), true
}

func dropVolatile(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if volatileKeys[k] {
				delete(v, k)
				continue
			}
			dropVolatile(x)
		}
	case []any:
		for _, x := range v {
			dropVolatile(x)
		}
	}
}
