package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// TestDependsOnLikeAgentV4 runs testdata/depends/deps.yaml, whose tests depend on each other
// (depends_on, on_dependency_failure skip, fail and run) against a cli target that fails on
// one question. The scores and which tests ran are AgentV 4.42.4's on the same file (targets
// in .agentv/), from
//
//	AGENTV_NO_UPDATE_CHECK=1 node node_modules/agentv/dist/cli.js eval deps.yaml -o run
//
// low 0 (quality failure), broken 0 (error: no answer), after-low 1 (a low score is not a
// failed dependency), skipped 0 ("Skipped: dependency failed (broken)"), failed 0 ("Failed:
// dependency failed (broken)"), ran-anyway 1, after-skipped 0 ("Skipped: dependency failed
// (skipped)"), after-ran 1; the target was asked low and boom, then after-low and ran-anyway,
// then after-ran.
func TestDependsOnLikeAgentV4(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh")
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, name := range []string{"answer.sh", "deps.yaml", "targets.yaml"} {
		files[name] = readFile(t, filepath.Join("testdata", "depends", name))
	}
	writeFiles(t, dir, files)
	res := agentv(t, dir, nil, "eval", "deps.yaml")
	if res.code != 3 {
		t.Errorf("exit %d, want 3 (errored cases)\n%s%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]struct {
		score   float64
		verdict results.Verdict
		err     string // fragment of the record's error
	}{
		"low":           {0, results.VerdictFail, ""},
		"broken":        {0, results.VerdictError, "command exited with code 3"},
		"after-low":     {1, results.VerdictPass, ""},
		"skipped":       {0, results.VerdictError, "skipped: dependency failed (broken)"},
		"failed":        {0, results.VerdictError, "failed: dependency failed (broken)"},
		"ran-anyway":    {1, results.VerdictPass, ""},
		"after-skipped": {0, results.VerdictError, "skipped: dependency failed (skipped)"},
		"after-ran":     {1, results.VerdictPass, ""},
	}
	got := res.byID()
	if len(res.records) != len(want) {
		t.Errorf("%d records, want %d", len(res.records), len(want))
	}
	for id, w := range want {
		r := got[id]
		if r == nil {
			t.Errorf("no record for %s\n%s%s", id, res.stdout, res.stderr)
			continue
		}
		if r.Score != w.score || r.Verdict != w.verdict || (w.err == "") != (r.Error == "") || !strings.Contains(r.Error, w.err) {
			t.Errorf("%s: score %v verdict %s error %q, want %v %s %q", id, r.Score, r.Verdict, r.Error, w.score, w.verdict, w.err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "order.log"))
	if err != nil {
		t.Fatal(err)
	}
	asked := strings.Fields(string(b))
	at := func(q string) int { return slices.Index(asked, q) }
	if len(asked) != 5 || at("low") < 0 || at("boom") < 0 || at("after-low") < at("low") || at("ran-anyway") < at("boom") || at("after-ran") < at("ran-anyway") {
		t.Errorf("the target was asked %q: want low and boom, each before the tests depending on it, and nothing for the tests not run", asked)
	}
}

// TestDependsOnErrors: an unknown id, a test depending on itself and a cycle are positioned
// load errors (AgentV 4.42.4 refuses the whole file); the other tests still run.
func TestDependsOnErrors(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	test := func(id, deps string) string {
		s := "  - id: " + id + "\n    input: q\n    assertions: [{type: contains, value: Hello}]\n"
		if deps != "" {
			s += "    depends_on: [" + deps + "]\n"
		}
		return s
	}
	writeFiles(t, dir, map[string]string{
		".git/HEAD":    "ref: refs/heads/main\n",
		"targets.yaml": readFile(t, filepath.Join("testdata", "assertions", "targets.yaml")),
		"bad.yaml": "tests:\n" + test("a", "b") + test("b", "a") + test("lost", "nope") + test("self", "self") +
			test("after", "lost") + test("fine", ""),
	})
	res := agentv(t, dir, nil, "eval", "bad.yaml")
	if res.code != 2 || len(res.records) != 1 || res.records[0].EvalID != "fine" || res.records[0].Score != 1 {
		t.Errorf("exit %d with %d records, want 2 (invalid) and the one test \"fine\" scored 1\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	for _, w := range []string{
		`bad.yaml:9:18: circular dependency: a → b → a`,
		`bad.yaml:13:18: depends_on "nope": no test of this file has that id (case "lost" not loaded)`,
		`bad.yaml:17:18: test "self" depends on itself (case "self" not loaded)`,
		`bad.yaml:21:18: depends_on "lost": that test is not loaded (case "after" not loaded)`,
	} {
		if !strings.Contains(res.stdout+res.stderr, w) {
			t.Errorf("output lacks %q\n%s%s", w, res.stdout, res.stderr)
		}
	}
}

// TestDependsOnLeftOutByEvalID: a test chosen by id whose dependency the choice leaves out
// stops the whole file, as in AgentV 4.42.4, which checks the dependencies of the tests
// --test-id keeps and refuses the file. On testdata/depends/deps.yaml,
//
//	node node_modules/agentv/dist/cli.js eval deps.yaml --test-id skipped --test-id low -o run
//
// exits 2 and records both tests as execution errors ("Test 'skipped' depends on 'broken', but
// no test with that ID exists in this suite"), asking the target nothing. A choice that keeps
// the dependencies runs as usual.
func TestDependsOnLeftOutByEvalID(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh")
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, name := range []string{"answer.sh", "deps.yaml", "targets.yaml"} {
		files[name] = readFile(t, filepath.Join("testdata", "depends", name))
	}
	writeFiles(t, dir, files)
	for _, args := range [][]string{{"--eval-id", "{skipped,low}"}, {"--test-id", "skipped", "--test-id", "low"}} {
		res := agentv(t, dir, nil, append([]string{"eval", "deps.yaml"}, args...)...)
		// An invalid run that asked nothing keeps the previous results file, so the
		// records are read from the progress lines.
		const why = `test "skipped" depends on "broken", which --eval-id or --test-id leaves out`
		if res.code != 2 || !strings.Contains(res.stdout+res.stderr, "ERROR 0.000 deps/low (0ms): "+why) ||
			!strings.Contains(res.stdout+res.stderr, "ERROR 0.000 deps/skipped (0ms): ") || !strings.Contains(res.stdout, "Errored: 2") {
			t.Errorf("%v: exit %d, want 2 (invalid) and both tests errors naming the dependency left out\n%s%s", args, res.code, res.stdout, res.stderr)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "order.log")); err == nil {
			t.Errorf("%v: the target was asked %q, want nothing", args, b)
		}
	}
	res := agentv(t, dir, nil, "eval", "deps.yaml", "--eval-id", "{after-low,low}")
	if got := res.byID(); res.code != 1 || len(res.records) != 2 || got["after-low"] == nil || got["after-low"].Score != 1 {
		t.Errorf("--eval-id {after-low,low}: exit %d with %d records, want 1 (low fails) and after-low scored 1\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
}
