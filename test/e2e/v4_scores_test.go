package e2e_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests in this file run small 4.x suites whose per-test scores (and grader names) were
// taken from AgentV 4.42.4 run on the same files:
//
//	AGENTV_NO_UPDATE_CHECK=1 node node_modules/agentv/dist/cli.js eval FILE -o RUNDIR
//
// (scores from RUNDIR/index.jsonl). Each one found a place where this tool scored otherwise.
// With AGENTV_V4_SCORES_DUMP=DIR set, each test also writes its files to DIR/<test name>, to
// run 4.42.4 on them again.

// v4Score is one test's expected result: its score and its graders' names in order.
type v4Score struct {
	score   float64
	graders string
}

// v4Judge is a mock judge target answering a free-form 4.x verdict of 0.6.
const v4Judge = `  - name: judge
    provider: mock
    response: '{"score": 0.6, "assertions": [{"text": "states 42", "passed": true}]}'
`

// runV4Scores writes files into a new directory, runs `agentv eval` with args there and
// checks every record against want (by test id). It returns the run for further checks.
func runV4Scores(t *testing.T, files map[string]string, want map[string]v4Score, args ...string) runResult {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	if dump := os.Getenv("AGENTV_V4_SCORES_DUMP"); dump != "" {
		writeFiles(t, filepath.Join(dump, t.Name()), files)
	}
	res := agentv(t, dir, nil, append([]string{"eval"}, args...)...)
	if res.code == 2 || res.code > 3 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	got := res.byID()
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range want {
			if !yield(id) {
				return
			}
		}
	}) {
		w, r := want[id], got[id]
		if r == nil {
			t.Errorf("no record for %s\nstdout:\n%s", id, res.stdout)
			continue
		}
		var names []string
		for _, e := range r.EvaluatorResults {
			names = append(names, e.Name)
		}
		if math.Abs(r.Score-w.score) > 1e-9 || strings.Join(names, " ") != w.graders {
			t.Errorf("%s: score %v graders %q, want %v %q (error %q)", id, r.Score, strings.Join(names, " "), w.score, w.graders, r.Error)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	return res
}

// A cli target's answer is graded as the command wrote it: 4.42.4 does not trim it, so
// `^The answer` fails on "  The answer is 42.\n\n" and `contains: "42.\n"` passes
// (starts-with and equals trim both sides themselves). A {PROMPT_FILE} holds the prompt as
// written, and its path has 4.42.4's shape.
func TestV4CLIAnswerAsWritten(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".agentv/targets.yaml": `targets:
  - name: default
    provider: cli
    command: printf '  The answer is 42.\n\n' > {OUTPUT_FILE}
    grader_target: judge
  - name: cli-pf
    provider: cli
    command: cat {PROMPT_FILE} > {OUTPUT_FILE}; echo {PROMPT_FILE} >> {OUTPUT_FILE}
    grader_target: judge
` + v4Judge,
		"trim.eval.yaml": `name: trim
tests:
  - id: raw-regex
    input: What is the answer?
    assertions:
      - type: regex
        value: "^The answer"
      - type: regex
        value: "42\\.$"
      - type: contains
        value: "42.\n"
      - type: equals
        value: The answer is 42.
      - type: starts-with
        value: The
`,
		"pf.eval.yaml": `name: pf
execution:
  target: cli-pf
tests:
  - id: prompt-file
    input: "What's the \"answer\"?"
    assertions:
      - type: regex
        value: "^What's the \"answer\"\\?/.*/agentv-prompt-file-[0-9]+-[a-z0-9]+\\.prompt\\.txt\\n$"
      - type: contains
        value: "What's the \"answer\"?"
`,
	}
	runV4Scores(t, files, map[string]v4Score{
		"raw-regex":   {0.6, `regex-^The answer regex-42\.$ contains-42.` + "\n" + ` equals-The answer is 42. starts-with-The`},
		"prompt-file": {1, `regex-^What's the "answer"\?/.*/agen contains-What's the "answer"?`},
	}, "trim.eval.yaml", "pf.eval.yaml")
}
