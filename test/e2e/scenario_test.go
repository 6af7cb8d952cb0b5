package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
		Run string            `yaml:"run"`
		Env map[string]string `yaml:"env"`
		// Files are files the step wrote, compared after normalising: $OUT/… in the results
		// folder, others relative to the repository.
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
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(dir, "files"))); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	var got strings.Builder
	for i, step := range sc.Steps {
		out := t.TempDir()
		args := strings.Fields(step.Run)
		if len(args) > 0 && args[0] == "eval" && !slices.Contains(args, "--out") && !slices.Contains(args, "-o") {
			args = append(args, "--out", filepath.Join(out, "results.jsonl"))
		}
		for j, a := range args {
			args[j] = strings.ReplaceAll(a, "$OUT", out)
		}
		cmd := exec.Command(agentvBin, args...)
		cmd.Dir = ws
		cmd.Env = append(cleanEnv(), "NO_COLOR=1")
		for _, k := range slices.Sorted(maps.Keys(step.Env)) {
			cmd.Env = append(cmd.Env, k+"="+step.Env[k])
		}
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("step %d: %v", i+1, err)
			}
			code = ee.ExitCode()
		}
		norm := normalizer(ws, out)
		if i > 0 {
			got.WriteString("\n")
		}
		fmt.Fprintf(&got, "$ agentv %s\nexit %d\n", step.Run, code)
		section(&got, "stdout", norm(so.String()))
		section(&got, "stderr", norm(se.String()))
		if b, err := os.ReadFile(filepath.Join(out, "results.jsonl")); err == nil {
			section(&got, "results", norm(stableRecords(t, b)))
		}
		for _, f := range step.Files {
			p := filepath.Join(ws, f)
			if rest, ok := strings.CutPrefix(f, "$OUT/"); ok {
				p = filepath.Join(out, rest)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				section(&got, f, fmt.Sprintf("(missing: %v)\n", err.(*fs.PathError).Err))
				continue
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

// volatile matches what differs between two runs of the same scenario: durations as the
// console and the reports print them, and ISO timestamps.
var volatile = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "<time>"},
	{regexp.MustCompile(`\btime="\d+(\.\d+)?"`), `time="<dur>"`},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s|m)\b`), "<dur>"},
	{regexp.MustCompile(`\b(\d+m)?\d+(\.\d+)?s\b`), "<dur>"},
}

// normalizer replaces the scenario's temporary folders by $REPO and $OUT, and volatile text by
// placeholders.
func normalizer(ws, out string) func(string) string {
	return func(s string) string {
		s = strings.ReplaceAll(s, out, "$OUT")
		s = strings.ReplaceAll(s, ws, "$REPO")
		for _, v := range volatile {
			s = v.re.ReplaceAllString(s, v.repl)
		}
		return s
	}
}

// volatileKeys are the fields of a results record that differ between runs.
var volatileKeys = map[string]bool{"timestamp": true, "duration_ms": true, "started_at": true, "finished_at": true, "run_id": true}

// stableRecords rewrites a results file with its records in a fixed order (by kind, dataset,
// id, target and trial) and without the fields that differ between runs, each indented,
// keys sorted.
func stableRecords(t *testing.T, raw []byte) string {
	t.Helper()
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
			t.Fatalf("results line %q: %v", l, err)
		}
		dropVolatile(v)
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprint(v["record"], "\x00", v["dataset"], "\x00", v["eval_id"], "\x00", v["target"], "\x00", v["trial"])
		lines = append(lines, line{key, string(b)})
	}
	slices.SortStableFunc(lines, func(a, b line) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.String()
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
