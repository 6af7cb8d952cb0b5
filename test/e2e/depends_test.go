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

// TestDependsOnInJSONLLikeAgentV4 runs testdata/depends/deps.jsonl, deps.yaml's tests as a JSONL
// eval file. AgentV 4.42.4 does not read depends_on or on_dependency_failure there (its JSONL
// loader, packages/core/src/evaluation/loaders/jsonl-parser.ts, builds tests without them): on
// this file, with its targets in .agentv/,
//
//	AGENTV_NO_UPDATE_CHECK=1 node node_modules/agentv/dist/cli.js eval deps.jsonl -o run
//
// runs every test: low 0, broken an error, the six others 1. agentv does the same and warns at
// each setting it does not read; a YAML file naming it in `tests:` still uses them.
func TestDependsOnInJSONLLikeAgentV4(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	requireTools(t, "sh")
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "via-yaml.eval.yaml": "tests: ./deps.jsonl\n"}
	for _, name := range []string{"answer.sh", "deps.jsonl", "targets.yaml"} {
		files[name] = readFile(t, filepath.Join("testdata", "depends", name))
	}
	writeFiles(t, dir, files)
	res := agentv(t, dir, nil, "eval", "deps.jsonl")
	if res.code != 3 {
		t.Errorf("exit %d, want 3 (an errored case)\n%s%s", res.code, res.stdout, res.stderr)
	}
	got := res.byID()
	if len(res.records) != 8 {
		t.Errorf("%d records, want 8\n%s%s", len(res.records), res.stdout, res.stderr)
	}
	for _, id := range []string{"after-low", "skipped", "failed", "ran-anyway", "after-skipped", "after-ran"} {
		if r := got[id]; r == nil || r.Score != 1 || r.Verdict != results.VerdictPass || r.Error != "" {
			t.Errorf("%s: %+v, want it run and passed (score 1) as 4.42.4 runs it", id, r)
		}
	}
	if r := got["low"]; r == nil || r.Score != 0 || r.Verdict != results.VerdictFail {
		t.Errorf("low: %+v, want score 0, fail", r)
	}
	if r := got["broken"]; r == nil || r.Verdict != results.VerdictError {
		t.Errorf("broken: %+v, want an error", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "order.log"))
	if err != nil {
		t.Fatal(err)
	}
	if asked := strings.Fields(string(b)); len(asked) != 8 {
		t.Errorf("the target was asked %q, want all 8 questions", asked)
	}
	out := res.stdout + res.stderr
	for _, w := range []string{
		`deps.jsonl:1:43: "depends_on" is not read in a JSONL eval file, as in AgentV 4.42.4: the test runs without waiting for the tests it names`,
		`deps.jsonl:5:70: "on_dependency_failure" is not read in a JSONL eval file, as in AgentV 4.42.4: the test runs whatever its dependencies did`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q\n%s", w, out)
		}
	}
	if n := strings.Count(out, "is not read in a JSONL eval file"); n != 9 {
		t.Errorf("%d warnings about unread settings, want 9 (6 depends_on, 3 on_dependency_failure)", n)
	}

	// Named by a YAML file's tests:, the same lines are YAML tests and their dependencies hold.
	res = agentv(t, dir, nil, "eval", "via-yaml.eval.yaml")
	got = res.byID()
	if r := got["skipped"]; r == nil || !strings.Contains(r.Error, "skipped: dependency failed (broken)") {
		t.Errorf("via a YAML file, skipped: %+v, want it skipped for its failed dependency", r)
	}
	if strings.Contains(res.stdout+res.stderr, "is not read in a JSONL eval file") {
		t.Errorf("via a YAML file, the dependencies are read; output:\n%s%s", res.stdout, res.stderr)
	}
}
