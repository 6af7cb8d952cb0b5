package e2e_test

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shardSuite writes a 1,000-case suite: 600 YAML cases (every seventh on a target whose judge
// fails it) and 400 JSONL cases, answered by a 200 ms mock.
func shardSuite(t *testing.T, dir string) {
	t.Helper()
	var y strings.Builder
	y.WriteString("evalcases:\n")
	for i := range 600 {
		fmt.Fprintf(&y, "  - id: y-%03d\n    input: question %d\n", i, i)
		if i%7 == 0 {
			y.WriteString("    execution: {target: weak}\n")
		}
	}
	var j strings.Builder
	for i := range 400 {
		fmt.Fprintf(&j, `{"id": "j-%03d", "input": "question %d"}`+"\n", i, i)
	}
	writeFiles(t, dir, map[string]string{
		"targets.yaml": `targets:
  - name: default
    provider: mock
    response: an answer
    delay_ms: 200
    workers: 100
    judge_target: judge
  - name: weak
    provider: mock
    response: a weak answer
    delay_ms: 200
    workers: 100
    judge_target: harsh
  - name: judge
    provider: mock
    response: '{"score": 0.9, "hits": ["good"], "misses": [], "reasoning": "fine"}'
  - name: harsh
    provider: mock
    response: '{"score": 0.3, "hits": [], "misses": ["too weak"], "reasoning": "weak"}'
`,
		"evals/a.yaml":  y.String(),
		"evals/b.jsonl": j.String(),
	})
}

type junitCase struct {
	Classname string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	Failure   *struct {
		Message string `xml:"message,attr"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
	} `xml:"error"`
	SystemOut string `xml:"system-out"`
}

// junitCases returns the test cases of a JUnit file, without their times.
func junitCases(t *testing.T, path string) []junitCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []junitCase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []junitCase
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			c.SystemOut = timings.ReplaceAllString(c.SystemOut, "T")
			out = append(out, c)
		}
	}
	return out
}

// timings matches the durations reports show ("1.2s", "250ms", "3m4s").
var timings = regexp.MustCompile(`\b\d+(\.\d+)?(ms|s|m\d+s|m)\b`)

// caseRows returns the case rows of a Markdown report (table lines naming a case), timings
// blanked.
func caseRows(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| ") && (strings.Contains(line, "y-") || strings.Contains(line, "j-")) {
			rows = append(rows, timings.ReplaceAllString(line, "T"))
		}
	}
	return rows
}

// TestShardsMergeToTheWholeRun: a 1,000-case suite split four ways runs each case in exactly
// one shard, each shard about a quarter, and the merged report equals the unsharded run's:
// counts, outcome, case records, case rows and JUnit test cases (only timings differ).
func TestShardsMergeToTheWholeRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	shardSuite(t, dir)
	whole := agentv(t, dir, nil, "eval", "evals")
	if whole.code != 1 || len(whole.records) != 1000 {
		t.Fatalf("whole run: exit %d, %d records\n%s%s", whole.code, len(whole.records), whole.stdout, whole.stderr)
	}

	shards := make([]runResult, 4)
	var wg sync.WaitGroup
	for i := range shards {
		wg.Go(func() { shards[i] = agentv(t, dir, nil, "eval", "evals", "--shard", fmt.Sprintf("%d/4", i+1)) })
	}
	wg.Wait()
	seen := map[string]int{}
	var args []string
	for i, s := range shards {
		if s.code > 1 || len(s.records) < 249 || len(s.records) > 251 {
			t.Fatalf("shard %d: exit %d, %d records (want 250 ± 1)\n%s%s", i+1, s.code, len(s.records), s.stdout, s.stderr)
		}
		for _, r := range s.records {
			if prev, ok := seen[r.EvalID]; ok {
				t.Fatalf("%s ran in shards %d and %d", r.EvalID, prev+1, i+1)
			}
			seen[r.EvalID] = i
		}
		if strings.Contains(s.stdout, "Total eval cases: 1000") || !strings.Contains(s.stdout, fmt.Sprintf("Shard %d of 4", i+1)) {
			t.Errorf("shard %d does not say it is a shard:\n%s", i+1, s.stdout)
		}
		args = append(args, "--results", filepath.Join(s.outDir, "results.jsonl"))
	}
	if len(seen) != 1000 {
		t.Fatalf("the shards ran %d of 1000 cases", len(seen))
	}

	merged := t.TempDir()
	rep := agentv(t, dir, nil, append(append([]string{"report"}, args...), "--out-dir", merged)...)
	if rep.code != whole.code {
		t.Fatalf("merged report exit %d, whole run %d\n%s%s", rep.code, whole.code, rep.stdout, rep.stderr)
	}
	headline := func(s string) string {
		i := strings.Index(s, "EVALUATION SUMMARY")
		j := strings.Index(s, "Mean score")
		o := strings.Index(s, "Outcome:")
		if i < 0 || j < 0 || o < 0 {
			t.Fatalf("no summary in:\n%s", s)
		}
		s = s[i:j] + s[o:]
		if k := strings.Index(s, "Results written"); k >= 0 {
			s = s[:k] // only the run writes results
		}
		return s
	}
	if diff := cmp.Diff(headline(whole.stdout), headline(rep.stdout)); diff != "" {
		t.Errorf("merged console summary differs from the whole run's (-whole +merged):\n%s", diff)
	}
	type row struct {
		ID, Dataset, Target, File, Answer, Verdict string
		Line                                       int
		Score                                      float64
	}
	rows := func(res runResult) []row {
		var out []row
		for _, r := range res.records {
			out = append(out, row{r.EvalID, r.Dataset, r.Target, r.File, r.CandidateAnswer, string(r.Verdict), r.Line, r.Score})
		}
		slices.SortFunc(out, func(a, b row) int { return strings.Compare(a.ID, b.ID) })
		return out
	}
	var all runResult
	for _, s := range shards {
		all.records = append(all.records, s.records...)
	}
	if diff := cmp.Diff(rows(whole), rows(all)); diff != "" {
		t.Errorf("shard records differ from the whole run's (-whole +shards):\n%s", diff)
	}
	if diff := cmp.Diff(junitCases(t, filepath.Join(whole.outDir, "junit.xml")), junitCases(t, filepath.Join(merged, "junit.xml"))); diff != "" {
		t.Errorf("merged JUnit test cases differ from the whole run's (-whole +merged):\n%s", diff)
	}
	// The comment is left out: 1,000 rows sit at its size limit, where the timings alone
	// decide whether the passing rows fit.
	for _, f := range []string{"summary.md"} {
		w, m := caseRows(t, filepath.Join(whole.outDir, f)), caseRows(t, filepath.Join(merged, f))
		if len(w) == 0 {
			t.Errorf("%s of the whole run has no case rows", f)
		}
		if diff := cmp.Diff(w, m); diff != "" {
			t.Errorf("merged %s case rows differ from the whole run's (-whole +merged):\n%s", f, diff)
		}
	}

	// A missing shard, a shard given twice, or a shard of another split: invalid, named.
	other := agentv(t, dir, nil, "eval", "evals", "--shard", "1/3")
	dup := filepath.Join(t.TempDir(), "copy.jsonl")
	if b, err := os.ReadFile(filepath.Join(shards[1].outDir, "results.jsonl")); err != nil || os.WriteFile(dup, b, 0o644) != nil {
		t.Fatal("could not copy a shard's results")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", args[:6], "shard 4 of 4 is missing"},
		{"twice", append(append([]string(nil), args...), "--results", dup), "shard 2 of 4 is in"},
		{"other plan", append(append([]string(nil), args[2:]...), "--results", filepath.Join(other.outDir, "results.jsonl")), "different plans"},
	} {
		res := agentv(t, dir, nil, append(append([]string{"report"}, tc.args...), "--out-dir", t.TempDir())...)
		if res.code != 2 || !strings.Contains(res.stdout, tc.want) {
			t.Errorf("%s: exit %d, want 2 with %q:\n%s%s", tc.name, res.code, tc.want, res.stdout, res.stderr)
		}
	}
}
