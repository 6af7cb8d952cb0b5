package e2e_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentv/action/results"
)

// AgentV 4.42.4's `agentv eval` flags, through the binary.

// agentvRaw runs the binary in dir with args as given (no --out added); out is the folder
// whose results.jsonl the result reads.
func agentvRaw(t *testing.T, dir, out string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(agentvBin, args...)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	return runOutcome(t, cmd.Run(), so.String(), se.String(), out)
}

// ids returns the ids of records, sorted.
func ids(recs []*results.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.EvalID)
	}
	sort.Strings(out)
	return out
}

// loggingAgent replaces the fixture's agent with one that answers the same and appends each
// prompt to calls.log, so a test sees which cases ran.
func loggingAgent(t *testing.T, ws string) func() []string {
	t.Helper()
	writeFiles(t, ws, map[string]string{"agent.sh": `#!/bin/sh
echo "$1" >> calls.log
case "$1" in
  *boom*) echo "crash" >&2; exit 3;;
  *) echo "answer: $1" > "$2";;
esac
`})
	return func() []string {
		b, _ := os.ReadFile(filepath.Join(ws, "calls.log"))
		os.Remove(filepath.Join(ws, "calls.log"))
		byPrompt := map[string]string{"say hello": "hello", "say bye": "bye", "half ok": "half", "boom now": "boom"}
		var ran []string
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if id := byPrompt[strings.TrimSpace(line)]; id != "" {
				ran = append(ran, id)
			}
		}
		sort.Strings(ran)
		return slices.Compact(ran)
	}
}

// -o DIR writes our results and reports and 4.x's run layout in DIR, which 4.42.4's own
// `agentv compare` reads (against 4.42.4's run of the same suite: every test matched).
func TestAgentV442OutputDir(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	run := filepath.Join(ws, "ours")
	res := agentvRaw(t, ws, run, "eval", "greet.eval.yaml", "-o", "ours")
	if res.code != 3 || len(res.records) != 4 {
		t.Fatalf("eval -o: exit %d, %d records, want 3 and 4\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	for _, f := range []string{"results.jsonl", "index.jsonl", "benchmark.json", "timing.json", "junit.xml", "summary.md"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	var rows []map[string]any
	b, _ := os.ReadFile(filepath.Join(run, "index.jsonl"))
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("index.jsonl line %q: %v", line, err)
		}
		rows = append(rows, row)
	}
	status := map[string]string{}
	for _, r := range rows {
		status[r["test_id"].(string)] = r["execution_status"].(string)
		if r["suite"] != "greet" || r["score"] == nil {
			t.Errorf("row %v: want suite greet and a score", r)
		}
	}
	want := map[string]string{"hello": "ok", "bye": "quality_failure", "half": "quality_failure", "boom": "execution_error"}
	if len(status) != 4 || status["hello"] != want["hello"] || status["bye"] != want["bye"] || status["half"] != want["half"] || status["boom"] != want["boom"] {
		t.Errorf("execution_status = %v, want %v", status, want)
	}

	// --out and --output both: which one?
	if res := agentvRaw(t, ws, t.TempDir(), "eval", "greet.eval.yaml", "-o", "x", "--out", "y/results.jsonl"); res.code != 2 || !strings.Contains(res.stderr, "--out and --output") {
		t.Errorf("-o with --out: exit %d, want 2 naming both\n%s", res.code, res.stderr)
	}

	t.Run("agentv 4.42.4 compare", func(t *testing.T) {
		cli := os.Getenv("AGENTV_TEST_AGENTV442")
		if cli == "" {
			t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
		}
		requireTools(t, "node")
		cmd := exec.Command("node", cli, "compare", "run", "ours", "--json")
		cmd.Dir = ws
		cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		var got struct {
			Matched []struct {
				TestID string  `json:"test_id"`
				Score1 float64 `json:"score1"`
				Score2 float64 `json:"score2"`
			} `json:"matched"`
			Unmatched struct{ File1, File2 int } `json:"unmatched"`
		}
		if err := json.Unmarshal(so.Bytes(), &got); err != nil {
			t.Fatalf("compare: %v: not its JSON\n%s%s", err, so.String(), se.String())
		}
		if len(got.Matched) != 4 || got.Unmatched.File1 != 0 || got.Unmatched.File2 != 0 {
			t.Fatalf("compare matched %d, unmatched %+v; want all 4 matched\n%s", len(got.Matched), got.Unmatched, so.String())
		}
		for _, m := range got.Matched {
			if m.Score1 != m.Score2 {
				t.Errorf("test %s: 4.42.4 scored %v, we %v", m.TestID, m.Score1, m.Score2)
			}
		}
	})
}

// --test-id (globs, any of them), --tag (all of them) and --exclude-tag (any of them) choose
// the cases that run; choosing none makes the run invalid, naming the flags.
func TestAgentV442Selection(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"a.eval.yaml": "name: a\ntags: [smoke, fast]\ntests:\n  - id: a-1\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n" +
			"  - id: a-2\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n",
		"b.eval.yaml": "name: b\ntags: [slow]\ntests:\n  - id: b-1\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n" +
			"  - id: b-2\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n",
		"c.eval.yaml":          "name: c\ntests:\n  - id: c-1\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n",
	})
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--test-id", "a-*", "--test-id", "b-2"}, []string{"a-1", "a-2", "b-2"}},
		{[]string{"--test-id", "c-1"}, []string{"c-1"}},
		{[]string{"--tag", "smoke"}, []string{"a-1", "a-2"}},
		{[]string{"--tag", "smoke", "--tag", "fast", "--test-id", "*-2"}, []string{"a-2"}},
		{[]string{"--exclude-tag", "slow"}, []string{"a-1", "a-2", "c-1"}},
		{[]string{"--exclude-tag", "slow", "--exclude-tag", "fast"}, []string{"c-1"}},
		{[]string{"--eval-id", "*-1", "--test-id", "a-*"}, []string{"a-1"}},
		{[]string{"--test-id", "!a-*"}, []string{"b-1", "b-2", "c-1"}},
		{[]string{"--test-id", "!(a|b)-*", "--test-id", "b-2"}, []string{"b-2", "c-1"}},
	} {
		res := agentv(t, ws, nil, append([]string{"eval", "a.eval.yaml", "b.eval.yaml", "c.eval.yaml", "--dry-run"}, tc.args...)...)
		if res.code != 0 || !slices.Equal(ids(res.records), tc.want) {
			t.Errorf("%v: exit %d, ran %v, want 0 and %v\n%s%s", tc.args, res.code, ids(res.records), tc.want, res.stdout, res.stderr)
		}
	}
	res := agentv(t, ws, nil, "eval", "a.eval.yaml", "b.eval.yaml", "--dry-run", "--tag", "smoke", "--tag", "slow")
	if res.code != 2 || !strings.Contains(res.stdout+res.stderr, `no eval case matched --tag "smoke" --tag "slow"`) {
		t.Errorf("tags no suite has: exit %d, want 2 naming them\n%s%s", res.code, res.stdout, res.stderr)
	}
	// What micromatch cannot read as a glob is literal text, as in 4.42.4: here it matches
	// no id, and the run says which flag chose nothing.
	if res := agentv(t, ws, nil, "eval", "a.eval.yaml", "--test-id", "[a-"); res.code != 2 || !strings.Contains(res.stdout+res.stderr, `no eval case matched --test-id "[a-"`) {
		t.Errorf("unclosed bracket: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := agentv(t, ws, nil, "eval", "a.eval.yaml", "--test-id", ""); res.code != 2 || !strings.Contains(res.stderr, "--test-id") {
		t.Errorf("empty --test-id: exit %d\n%s", res.code, res.stderr)
	}
}

// --threshold is the case threshold, and wins over an eval file's execution.threshold (as in
// 4.42.4), where --case-threshold does not.
func TestAgentV442Threshold(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		// The dry-run answer holds "Mock" and not "zzz": the test scores 0.5.
		"s.eval.yaml": "execution:\n  threshold: 0.4\ntests:\n  - id: half\n    input: hi\n    assertions:\n" +
			"      - {type: contains, value: Mock}\n      - {type: contains, value: zzz}\n",
		"plain.eval.yaml": "tests:\n  - id: half\n    input: hi\n    assertions:\n" +
			"      - {type: contains, value: Mock}\n      - {type: contains, value: zzz}\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n",
	})
	for _, tc := range []struct {
		file string
		args []string
		code int
	}{
		{"s.eval.yaml", nil, 0},                                                           // the file's 0.4
		{"s.eval.yaml", []string{"--case-threshold", "0.6"}, 0},                           // the file's still
		{"s.eval.yaml", []string{"--threshold", "0.6"}, 1},                                // --threshold wins
		{"plain.eval.yaml", []string{"--threshold", "0.5"}, 0},                            // = --case-threshold 0.5
		{"plain.eval.yaml", []string{"--threshold", "0.51"}, 1},                           //
		{"plain.eval.yaml", []string{"--threshold", "1.5"}, 2},                            // not a score
		{"plain.eval.yaml", []string{"--threshold", "0.5", "--case-threshold", "0.7"}, 2}, // which one?
	} {
		res := agentv(t, ws, nil, append([]string{"eval", tc.file, "--dry-run"}, tc.args...)...)
		if res.code != tc.code {
			t.Errorf("%s %v: exit %d, want %d\n%s%s", tc.file, tc.args, res.code, tc.code, res.stdout, res.stderr)
		}
	}
}

// --grader-target is --judge-target: the LLM grader runs on the named target.
func TestAgentV442GraderTarget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: hello\n" +
			"  - name: judge\n    provider: mock\n    response: '{\"score\": 0.25, \"assertions\": [{\"text\": \"meh\", \"passed\": false}], \"reasoning\": \"so so\"}'\n",
		"s.eval.yaml": "tests:\n  - id: t\n    input: say hello\n    criteria: greets\n",
	})
	res := agentv(t, ws, nil, "eval", "s.eval.yaml", "--grader-target", "judge", "--threshold", "0.2")
	if res.code != 0 || len(res.records) != 1 || res.records[0].Score != 0.25 {
		t.Fatalf("--grader-target judge: exit %d, records %d, want the judge's 0.25\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	res = agentv(t, ws, nil, "eval", "s.eval.yaml", "--grader-target", "nope")
	if res.code != 2 || !strings.Contains(res.stdout+res.stderr, "nope") {
		t.Errorf("--grader-target nope: exit %d, want 2 naming it\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// --cache-path DIR turns the response cache on in DIR: a second run answers from it.
func TestAgentV442CachePath(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	calls := loggingAgent(t, ws)
	// A cli target is answered from the cache only when it says so: it may read files.
	writeFiles(t, ws, map[string]string{".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    cache: true\n" +
		"    command: sh ./agent.sh {PROMPT} {OUTPUT_FILE}\n"})
	first := agentv(t, ws, nil, "eval", "greet.eval.yaml", "--test-id", "hello", "--cache-path", "c")
	if first.code != 0 || len(calls()) == 0 {
		t.Fatalf("first run: exit %d\n%s%s", first.code, first.stdout, first.stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(ws, "c")); len(entries) == 0 {
		t.Fatal("--cache-path c: the folder holds nothing")
	}
	second := agentv(t, ws, nil, "eval", "greet.eval.yaml", "--test-id", "hello", "--cache-path", "c")
	if got := calls(); second.code != 0 || len(got) != 0 {
		t.Errorf("second run: exit %d, agent called for %v, want none (cached)\n%s%s", second.code, got, second.stdout, second.stderr)
	}
}

// budgetWorkspace is a suite of five tests c1..c5 whose cli agent, one case at a time,
// answers "ok" and reports that it cost $0.40.
func budgetWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	var tests strings.Builder
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
		tests.WriteString("  - id: " + id + "\n    input: case " + id + "\n    assertions: [{type: contains, value: ok}]\n")
	}
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    workers: 1\n" +
			"    command: sh ./agent.sh {OUTPUT_FILE}\n",
		"agent.sh":    "printf '{\"text\": \"ok\", \"cost_usd\": 0.4}' > \"$1\"\n",
		"s.eval.yaml": "tests:\n" + tests.String(),
	})
	return ws
}

// indexStatuses returns each test's execution_status in a 4.x index.jsonl, and its error.
func indexStatuses(path string) (status, errs map[string]string) {
	status, errs = map[string]string{}, map[string]string{}
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row struct {
			TestID string `json:"test_id"`
			Status string `json:"execution_status"`
			Error  string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &row) == nil {
			status[row.TestID], errs[row.TestID] = row.Status, row.Error
		}
	}
	return status, errs
}

// AgentV 4.42.4 given the same --budget-usd stops the same cases (c4 and c5, once c1..c3
// cost $1.20 of $1) as execution errors, with the same words (ours add why).
func TestAgentV442BudgetDifferential(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
	}
	requireTools(t, "node", "sh")
	ws := budgetWorkspace(t)
	cmd := exec.Command("node", cli, "eval", "s.eval.yaml", "-o", "theirs", "--budget-usd", "1", "--workers", "1")
	cmd.Dir = ws
	cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
	out, _ := cmd.CombinedOutput() // it exits 1; we exit 3 (errored cases): docs/agentv-4.md
	theirs, theirErrs := indexStatuses(filepath.Join(ws, "theirs", "index.jsonl"))
	res := agentvRaw(t, ws, filepath.Join(ws, "ours"), "eval", "s.eval.yaml", "-o", "ours", "--budget-usd", "1")
	ours, ourErrs := indexStatuses(filepath.Join(ws, "ours", "index.jsonl"))
	if len(theirs) != 5 || fmt.Sprint(theirs) != fmt.Sprint(ours) {
		t.Errorf("4.42.4: %v\nours: %v\n%s\n%s%s", theirs, ours, out, res.stdout, res.stderr)
	}
	for id, e := range theirErrs {
		if !strings.HasPrefix(ourErrs[id], e) {
			t.Errorf("%s: our error %q does not start with 4.42.4's %q", id, ourErrs[id], e)
		}
	}
}

// --budget-usd stops starting cases once the finished ones cost that much: the rest are error
// records saying so, and every report says it.
func TestAgentV442Budget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := budgetWorkspace(t)
	res := agentv(t, ws, nil, "eval", "s.eval.yaml", "--budget-usd", "1")
	if res.code != 3 || len(res.records) != 5 {
		t.Fatalf("exit %d, %d records, want 3 and 5\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	var ran, stopped []string
	for _, r := range res.records {
		switch {
		case r.Verdict == results.VerdictPass:
			ran = append(ran, r.EvalID)
		case r.Error == "Run budget exceeded ($1.2000 / $1.0000): not run (--budget-usd)":
			stopped = append(stopped, r.EvalID)
		}
	}
	if !slices.Equal(ran, []string{"c1", "c2", "c3"}) || !slices.Equal(stopped, []string{"c4", "c5"}) {
		t.Errorf("ran %v, stopped %v; want c1-c3 run (spent $1.20), c4 and c5 stopped", ran, stopped)
	}
	const said = "budget $1.00 (--budget-usd): $1.2000 spent, exceeded: 2 cases not run"
	if !strings.Contains(res.stdout, said) {
		t.Errorf("console does not say %q:\n%s", said, res.stdout)
	}
	for _, f := range []string{"summary.md", "comment.md"} {
		// Markdown escapes the dollar sign (GitHub would read $...$ as math).
		if b, _ := os.ReadFile(filepath.Join(res.outDir, f)); !strings.Contains(strings.ReplaceAll(string(b), "&#36;", "$"), said) {
			t.Errorf("%s does not say %q:\n%s", f, said, b)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(res.outDir, "junit.xml"))
	for _, p := range []string{`<property name="budget-usd" value="1">`, `<property name="budget-exceeded" value="true">`, `<property name="budget-not-run" value="2">`} {
		if !strings.Contains(string(junit), p) {
			t.Errorf("junit.xml lacks %s", p)
		}
	}
	var end *results.RunRecord
	_ = results.ScanFileLines(filepath.Join(res.outDir, "results.jsonl"), results.Visitor{Run: func(r *results.RunRecord, _ int) error {
		if r.Kind == results.KindRunEnd {
			end = r
		}
		return nil
	}})
	if end == nil || end.Budget == nil || !end.Budget.Exceeded || end.Budget.NotRun != 2 || end.Budget.LimitUSD != 1 {
		t.Errorf("run end record budget = %+v", end)
	}

	// Under budget: nothing is stopped, and nothing said but the properties.
	res = agentv(t, ws, nil, "eval", "s.eval.yaml", "--budget-usd", "$5")
	if res.code != 0 || strings.Contains(res.stdout, "exceeded") {
		t.Errorf("budget $5: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := agentv(t, ws, nil, "eval", "s.eval.yaml", "--budget-usd", "0"); res.code != 2 || !strings.Contains(res.stderr, "--budget-usd") {
		t.Errorf("budget 0: exit %d\n%s", res.code, res.stderr)
	}
}

// --rerun-failed runs again the cases that did not pass in the run directory's results (ours
// or 4.42.4's) and --retry-errors the errored ones of any results; the others are carried over
// into one complete results file.
func TestAgentV442Rerun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	calls := loggingAgent(t, ws)
	all := []string{"boom", "bye", "half", "hello"}

	// 4.42.4's run directory as the run to rerun: hello passed there.
	res := agentvRaw(t, ws, filepath.Join(ws, "run"), "eval", "greet.eval.yaml", "-o", "run", "--rerun-failed")
	if got := calls(); res.code != 3 || !slices.Equal(got, []string{"boom", "bye", "half"}) || !slices.Equal(ids(res.records), all) {
		t.Fatalf("--rerun-failed on 4.42.4's run: exit %d, ran %v, records %v\n%s%s", res.code, got, ids(res.records), res.stdout, res.stderr)
	}
	if h := res.byID()["hello"]; h.Score != 1 || h.Verdict != results.VerdictPass {
		t.Errorf("hello carried over as %+v", h)
	}

	// Our own run directory, rerun again: still only what did not pass.
	res = agentvRaw(t, ws, filepath.Join(ws, "run"), "eval", "greet.eval.yaml", "-o", "run", "--rerun-failed")
	if got := calls(); res.code != 3 || !slices.Equal(got, []string{"boom", "bye", "half"}) || len(res.records) != 4 {
		t.Errorf("--rerun-failed on ours: exit %d, ran %v, %d records", res.code, got, len(res.records))
	}

	// --retry-errors: only boom errored in 4.42.4's run (its fixture copy is untouched).
	ws2 := agentv442Workspace(t)
	calls2 := loggingAgent(t, ws2)
	res = agentv(t, ws2, nil, "eval", "greet.eval.yaml", "--retry-errors", "run")
	if got := calls2(); res.code != 3 || !slices.Equal(got, []string{"boom"}) || !slices.Equal(ids(res.records), all) {
		t.Fatalf("--retry-errors: exit %d, ran %v, records %v\n%s%s", res.code, got, ids(res.records), res.stdout, res.stderr)
	}
	if h := res.byID()["half"]; h.Score != 0.5 || h.Verdict != results.VerdictFail {
		t.Errorf("half carried over as %+v", h)
	}

	// No earlier results: every case runs, with a notice.
	res = agentv(t, ws2, nil, "eval", "greet.eval.yaml", "--retry-errors", "nowhere.jsonl")
	if got := calls2(); len(got) != 4 || !strings.Contains(res.stderr, "no earlier results") {
		t.Errorf("--retry-errors nowhere: ran %v\n%s", got, res.stderr)
	}
	if res := agentv(t, ws2, nil, "eval", "greet.eval.yaml", "--retry-errors", "run", "--rerun-failed"); res.code != 2 {
		t.Errorf("both: exit %d, want 2", res.code)
	}
}

// `agentv validate` given a targets file (as 4.x users write `agentv validate evals
// .agentv/targets.yaml`) validates it as targets, with positioned errors, not as an eval file.
func TestAgentV442ValidateTargetsFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	res := agentv(t, ws, nil, "validate", "greet.eval.yaml", ".agentv/targets.yaml")
	if res.code != 0 || !strings.Contains(res.stdout, "1 eval file, 1 targets file, 4 cases, 0 errors, 0 warnings") {
		t.Errorf("validate with the targets file: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	writeFiles(t, ws, map[string]string{"more/models.yaml": "targets:\n  - name: x\n    provider: nope\n"})
	res = agentv(t, ws, nil, "validate", "more/models.yaml")
	if res.code != 2 || !strings.Contains(res.stdout, `more/models.yaml:3:5: target "x": provider: unknown provider "nope"`) ||
		!strings.Contains(res.stdout, "0 eval files, 1 targets file") {
		t.Errorf("validate a bad targets file: exit %d, want 2 with its error\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// `agentv eval run <paths>`, 4.x's spelling, runs the paths; a folder named run is still a path.
func TestAgentV442EvalRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n",
		"s.eval.yaml":          "tests:\n  - id: a\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n",
	})
	if res := agentv(t, ws, nil, "eval", "run", "s.eval.yaml", "--dry-run"); res.code != 0 || len(res.records) != 1 {
		t.Errorf("eval run: exit %d, %d records\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	writeFiles(t, ws, map[string]string{"run/r.eval.yaml": "tests:\n  - id: b\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n"})
	if res := agentv(t, ws, nil, "eval", "run", "s.eval.yaml", "--dry-run"); res.code != 0 || !slices.Equal(ids(res.records), []string{"a", "b"}) {
		t.Errorf("eval run with a run folder: exit %d, ran %v\n%s%s", res.code, ids(res.records), res.stdout, res.stderr)
	}
}

// The same command lines given to AgentV 4.42.4 and to us choose the same tests and exit
// the same way (--test-id, --tag, --exclude-tag, --threshold over a file's threshold).
func TestAgentV442FlagsDifferential(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
	}
	requireTools(t, "node", "sh")
	ws := t.TempDir()
	both := "    assertions:\n      - {type: contains, value: Mock}\n      - {type: contains, value: zzz}\n" // 0.5
	writeFiles(t, ws, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: default\n    provider: cli\n    command: sh ./agent.sh {OUTPUT_FILE}\n",
		"agent.sh":             "echo 'Mock answer' > \"$1\"\n",
		"a.eval.yaml":          "name: a\ntags: [smoke, fast]\ntests:\n  - id: a-1\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n  - id: a-2\n    input: hi\n" + both,
		"b.eval.yaml":          "name: b\ntags: [slow]\nexecution:\n  threshold: 0.4\ntests:\n  - id: b-1\n    input: hi\n" + both + "  - id: b-2\n    input: hi\n    assertions: [{type: contains, value: Mock}]\n",
	})
	for _, args := range [][]string{
		// Without any threshold 4.42.4 exits 0 whatever the scores (docs/agentv-4.md lists
		// it): each line here gives one, or runs a file that has one.
		{"--test-id", "a-*", "--test-id", "b-2", "--threshold", "0.6"},
		{"--tag", "smoke", "--threshold", "0.5"},
		{"--tag", "slow"},
		{"--tag", "slow", "--threshold", "0.6"},
		{"--exclude-tag", "fast", "--test-id", "*-1"},
		{"--threshold", "0.3"},
		// micromatch's syntax: negation, extglobs, a negated pattern among others.
		{"--test-id", "!a-1", "--threshold", "0.4"},
		{"--test-id", "@(a|b)-2", "--test-id", "!(b)-*", "--threshold", "0.4"},
		{"--test-id", "!(a)-1", "--test-id", "+([a-z])-@(1)", "--threshold", "0.4"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			differ(t, cli, ws, args)
		})
	}
}

// differ runs `eval a.eval.yaml b.eval.yaml args` with 4.42.4 and with us in ws and compares
// the tests run and the exit codes.
func differ(t *testing.T, cli, ws string, args []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command("node", append([]string{cli, "eval", "a.eval.yaml", "b.eval.yaml", "-o", dir}, args...)...)
	cmd.Dir = ws
	cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
	outText, err := cmd.CombinedOutput()
	theirCode := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		theirCode = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var theirs []string
	b, _ := os.ReadFile(filepath.Join(dir, "index.jsonl"))
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row struct {
			TestID string `json:"test_id"`
		}
		if json.Unmarshal([]byte(line), &row) == nil && row.TestID != "" {
			theirs = append(theirs, row.TestID)
		}
	}
	sort.Strings(theirs)
	res := agentv(t, ws, nil, append([]string{"eval", "a.eval.yaml", "b.eval.yaml"}, args...)...)
	if res.code != theirCode || !slices.Equal(ids(res.records), theirs) {
		t.Errorf("%v: we exit %d running %v; 4.42.4 exits %d running %v\n%s", args, res.code, ids(res.records), theirCode, theirs, outText)
	}
}

// --rerun-failed and --retry-errors run the same cases again with AgentV 4.42.4 and with us,
// starting from 4.42.4's run directory of the fixture.
func TestAgentV442RerunDifferential(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
	}
	requireTools(t, "node", "sh")
	for _, args := range [][]string{
		{"-o", "run", "--rerun-failed"},
		// A test that did not pass then runs again though it would pass at this threshold:
		// 4.42.4 goes by the earlier row's execution_status.
		{"-o", "run", "--rerun-failed", "--threshold", "0.4"},
		{"--retry-errors", "run", "-o", "again"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			theirWS, ourWS := agentv442Workspace(t), agentv442Workspace(t)
			theirCalls, ourCalls := loggingAgent(t, theirWS), loggingAgent(t, ourWS)
			cmd := exec.Command("node", append([]string{cli, "eval", "greet.eval.yaml"}, args...)...)
			cmd.Dir = theirWS
			cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
			var ee *exec.ExitError // with --threshold a failed test makes it exit 1
			if out, err := cmd.CombinedOutput(); err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
				t.Fatalf("4.42.4: %v\n%s", err, out)
			}
			res := agentvRaw(t, ourWS, t.TempDir(), append([]string{"eval", "greet.eval.yaml"}, args...)...)
			if theirs, ours := theirCalls(), ourCalls(); !slices.Equal(theirs, ours) || len(ours) == 0 {
				t.Errorf("4.42.4 ran %v again, we ran %v\n%s%s", theirs, ours, res.stdout, res.stderr)
			}
			// The run directory afterwards: 4.42.4 appends the rows of the tests run again
			// to index.jsonl, which then lists them twice.
			dir := args[slices.Index(args, "-o")+1]
			theirs, ours := indexRows(t, filepath.Join(theirWS, dir)), indexRows(t, filepath.Join(ourWS, dir))
			if !slices.Equal(theirs, ours) {
				t.Errorf("index.jsonl rows: 4.42.4 %v, we %v", theirs, ours)
			}
		})
	}
}

// --target given several times runs every test on each named target (4.42.4's matrix), in
// place of the suite's own target; a test's execution.targets keeps those it lists. The
// records, index.jsonl rows and reports name each record's target; 4.42.4 run on the same
// command line writes the same rows.
func TestAgentV442TargetMatrix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".agentv/targets.yaml": "targets:\n  - name: alpha\n    provider: mock\n    response: alpha says hi\n" +
			"  - name: beta\n    provider: mock\n    response: beta says hi\n  - name: gamma\n    provider: mock\n    response: gamma says hi\n",
		"mx.eval.yaml": "name: mx\nexecution:\n  target: gamma\ntests:\n" +
			"  - id: all\n    input: hi\n    assertions: [{type: contains, value: alpha}]\n" +
			"  - id: only-beta\n    input: hi\n    execution:\n      targets: [beta]\n    assertions: [{type: contains, value: says}]\n",
	})
	args := []string{"eval", "mx.eval.yaml", "--target", "alpha", "--target", "beta", "--threshold", "0.5"}
	res := agentvRaw(t, ws, filepath.Join(ws, "ours"), append(args, "-o", "ours")...)
	got := rowsByTarget(t, filepath.Join(ws, "ours", "index.jsonl"))
	want := map[string]float64{"all@alpha": 1, "all@beta": 0, "only-beta@beta": 1}
	if res.code != 1 || !maps.Equal(got, want) || len(res.records) != 3 {
		t.Fatalf("exit %d, index rows %v, %d records; want 1, %v and 3\n%s%s", res.code, got, len(res.records), want, res.stdout, res.stderr)
	}
	for _, r := range res.records {
		if r.Target != "alpha" && r.Target != "beta" {
			t.Errorf("record %s on target %q, want alpha or beta", r.EvalID, r.Target)
		}
	}
	if !strings.Contains(res.stdout, "0.000  all [beta]") {
		t.Errorf("the console does not name the failed record's target:\n%s", res.stdout)
	}
	// --rerun-failed runs a test again only on the targets it did not pass on, as 4.42.4
	// does, and appends that row to index.jsonl.
	rerun := agentvRaw(t, ws, filepath.Join(ws, "ours"), append(args, "-o", "ours", "--rerun-failed")...)
	if lines := progressLine.FindAllString(rerun.stderr, -1); len(lines) != 1 || !strings.Contains(lines[0], "all [beta]") || len(rerun.records) != 3 {
		t.Errorf("--rerun-failed ran %q, %d records; want all on beta alone, and 3\n%s", lines, len(rerun.records), rerun.stderr)
	}
	oursAfter := indexRows(t, filepath.Join(ws, "ours"))
	// One --target still overrides the suite's target, and a test's execution.targets.
	one := agentvRaw(t, ws, filepath.Join(ws, "one"), "eval", "mx.eval.yaml", "--target", "alpha", "-o", "one")
	if got := rowsByTarget(t, filepath.Join(ws, "one", "index.jsonl")); !maps.Equal(got, map[string]float64{"all@alpha": 1, "only-beta@alpha": 1}) {
		t.Errorf("one --target: rows %v\n%s%s", got, one.stdout, one.stderr)
	}

	t.Run("agentv 4.42.4", func(t *testing.T) {
		cli := os.Getenv("AGENTV_TEST_AGENTV442")
		if cli == "" {
			t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
		}
		requireTools(t, "node")
		cmd := exec.Command("node", append([]string{cli}, append(args, "-o", "theirs")...)...)
		cmd.Dir = ws
		cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if theirs := rowsByTarget(t, filepath.Join(ws, "theirs", "index.jsonl")); !maps.Equal(theirs, got) {
			t.Errorf("4.42.4 wrote %v, we %v\n%s", theirs, got, out)
		}
		cmd = exec.Command("node", append([]string{cli}, append(args, "-o", "theirs", "--rerun-failed")...)...)
		cmd.Dir = ws
		cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
		out, err = cmd.CombinedOutput()
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if theirs := indexRows(t, filepath.Join(ws, "theirs")); !slices.Equal(theirs, oursAfter) {
			t.Errorf("after --rerun-failed 4.42.4's index.jsonl has %v, ours %v\n%s", theirs, oursAfter, out)
		}
	})
}

// rowsByTarget reads an index.jsonl into test_id@target -> score.
func rowsByTarget(t *testing.T, path string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row struct {
			TestID string  `json:"test_id"`
			Target string  `json:"target"`
			Score  float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows[row.TestID+"@"+row.Target] = row.Score
	}
	return rows
}

// -o DIR writes a folder per test (grading.json, timing.json, input.md, outputs/answer.md)
// that 4.42.4's own readers of a run directory read: `results validate`, `results show`,
// `results failures`, `results summary`, `inspect show`, `inspect stats` and `inspect filter`
// say the same of our run as of 4.42.4's run of the same suite (the fixture's run/), but for
// durations and the wording of the crashed test's error.
func TestAgentV442RunDirReaders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ws := agentv442Workspace(t)
	res := agentvRaw(t, ws, filepath.Join(ws, "ours", "run"), "eval", "greet.eval.yaml", "-o", "ours/run")
	if res.code != 3 || len(res.records) != 4 {
		t.Fatalf("exit %d, %d records\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	for _, f := range []string{"greet/half/grading.json", "greet/half/timing.json", "greet/half/input.md", "greet/half/outputs/answer.md", "greet/half/outputs/response.md"} {
		if _, err := os.Stat(filepath.Join(ws, "ours", "run", f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "ours", "run", "greet", "half", "outputs", "answer.md")); string(b) != "answer: half ok\n" { // as 4.42.4 writes it
		t.Errorf("answer.md = %q", b)
	}

	cli := os.Getenv("AGENTV_TEST_AGENTV442")
	if cli == "" {
		t.Skip("AGENTV_TEST_AGENTV442 (the path of AgentV 4.42.4's dist/cli.js) is not set")
	}
	requireTools(t, "node")
	// What differs between two runs of the suite: how long things took, our error's words.
	noise := []*regexp.Regexp{
		regexp.MustCompile(`"(total_)?duration_ms": \d+`), regexp.MustCompile(`Duration: (\d+m)?[\d.]+m?s`),
		regexp.MustCompile(`(?m)^.*crash.*$`), regexp.MustCompile(`(Results|Statistics): \S+`),
		regexp.MustCompile(`(?m)^ *latency_s .*$`), // inspect stats: seconds the mock targets took, 0.1 on a busy machine
	}
	read := func(args ...string) string {
		cmd := exec.Command("node", append([]string{cli}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(cleanEnv(), "AGENTV_NO_UPDATE_CHECK=1", "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("4.42.4 %v: %v\n%s", args, err, out)
		}
		s := string(out)
		for _, re := range noise {
			s = re.ReplaceAllString(s, "~")
		}
		return s
	}
	for _, cmd := range [][]string{
		{"results", "validate"}, {"results", "failures"}, {"results", "summary"},
		{"results", "show", "--test-id", "half"}, {"results", "show", "--test-id", "boom"},
		{"inspect", "show"}, {"inspect", "stats"}, {"inspect", "filter"},
	} {
		theirs, ours := read(append(cmd, "run")...), read(append(cmd, "ours/run")...)
		if theirs != ours {
			t.Errorf("4.42.4's %v on its run and on ours differ:\n--- its run\n%s\n--- ours\n%s", cmd, theirs, ours)
		}
	}
}

// indexRows lists the rows of dir's index.jsonl as test_id@target:execution_status, sorted.
func indexRows(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row struct {
			TestID string `json:"test_id"`
			Target string `json:"target"`
			Status string `json:"execution_status"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		rows = append(rows, row.TestID+"@"+row.Target+":"+row.Status)
	}
	sort.Strings(rows)
	return rows
}
