package e2e_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// matrixTargets and matrixSuite run every test on two targets: one id has a record per target.
const matrixTargets = `targets:
  - name: alpha
    provider: mock
    response: alpha says hi
  - name: beta
    provider: mock
    response: beta says hi
`

const matrixSuite = `name: matrix
execution:
  targets: [alpha, beta]
tests:
  - id: both
    input: hi
    assertions:
      - {type: contains, value: alpha}
      - {type: contains, value: says}
  - id: strict
    input: hi
    assertions:
      - {type: contains, value: alpha}
`

// TestSeveralTargetsLabels checks that a run where a test runs on several targets names the
// target wherever the test's records would otherwise read alike: progress lines, the
// console's ranked lists, the Markdown reports, JUnit testcase names (unique in their
// testsuite) and after a report of the results file too. A run on one target is unchanged.
func TestSeveralTargetsLabels(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".agentv/targets.yaml": matrixTargets, "mx.eval.yaml": matrixSuite})
	res := agentv(t, dir, nil, "eval", "mx.eval.yaml")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	lines := progressLine.FindAllString(res.stderr, -1)
	if len(lines) != 4 {
		t.Fatalf("%d progress lines, want 4:\n%s", len(lines), res.stderr)
	}
	named := regexp.MustCompile(`[ /](both|strict) \[(alpha|beta)\] \(`)
	seen := map[string]bool{}
	for _, l := range lines {
		m := named.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("progress line does not name its target: %q", l)
			continue
		}
		seen[m[1]+" "+m[2]] = true
	}
	if len(seen) != 4 {
		t.Errorf("progress lines name %v, want every test on every target", seen)
	}
	if !strings.Contains(res.stdout, "0.000  strict [beta]\n") {
		t.Errorf("console's bottom cases do not name the target:\n%s", res.stdout)
	}
	check := func(outDir string) {
		t.Helper()
		for _, name := range []string{"summary.md", "comment.md"} {
			b, err := os.ReadFile(filepath.Join(outDir, name))
			if err != nil || !strings.Contains(string(b), "strict &#91;beta&#93;") {
				t.Errorf("%s (%v) does not name the failed record's target:\n%s", name, err, b)
			}
		}
		b, err := os.ReadFile(filepath.Join(outDir, "junit.xml"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Suites []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name string `xml:"name,attr"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range doc.Suites {
			unique := map[string]bool{}
			for _, c := range s.Cases {
				if unique[c.Name] {
					t.Errorf("testsuite %s: two testcases named %q", s.Name, c.Name)
				}
				unique[c.Name] = true
				names = append(names, c.Name)
			}
		}
		if want := "both [alpha],both [beta],strict [alpha],strict [beta]"; strings.Join(names, ",") != want {
			t.Errorf("testcases %v, want %s", names, want)
		}
	}
	check(res.outDir)
	out := t.TempDir()
	if rep := agentv(t, dir, nil, "report", "--results", filepath.Join(res.outDir, "results.jsonl"), "--out-dir", out); rep.code != 1 {
		t.Errorf("report: exit %d, want 1\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	check(out)

	// --target picks one: nothing names a target.
	res = agentv(t, dir, nil, "eval", "mx.eval.yaml", "--target", "beta")
	if strings.Contains(res.stderr+res.stdout, "[beta]") || len(progressLine.FindAllString(res.stderr, -1)) != 2 {
		t.Errorf("a run on one target names it:\n%s%s", res.stderr, res.stdout)
	}
}

// TestOwnThresholdsReason checks that a failed run whose cases passed at thresholds their
// eval file set says so in the outcome's reason and in the reports' settings line, rather
// than naming the run's case threshold alone.
func TestOwnThresholdsReason(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	targets := matrixTargets + "  - name: default\n    provider: mock\n    response: hi\n"
	writeFiles(t, dir, map[string]string{".agentv/targets.yaml": targets, "th.eval.yaml": `name: own
execution:
  targets: [alpha, beta]
  threshold: 0.5
tests:
  - id: both
    input: hi
    assertions:
      - {type: contains, value: alpha}
      - {type: contains, value: says}
  - id: strict
    input: hi
    execution: {threshold: 0.9}
    assertions:
      - {type: contains, value: alpha}
      - {type: contains, value: says}
`, "plain.yaml": "evalcases:\n" + genCases(1)})
	res := agentv(t, dir, nil, "eval", "th.eval.yaml", "plain.yaml")
	reason := "2 failed cases below their case threshold (0.80; 2 cases use their file's 0.50, 2 cases use their file's 0.90; max-failures 0)"
	if res.code != 1 || !strings.Contains(res.stdout, "Outcome: FAIL — "+reason+"\n") {
		t.Errorf("exit %d, want 1 with %q:\n%s%s", res.code, reason, res.stdout, res.stderr)
	}
	settings := "case threshold 0.8; 2 cases use their file's 0.5, 2 cases use their file's 0.9"
	for _, name := range []string{"summary.md", "comment.md"} {
		b, err := os.ReadFile(filepath.Join(res.outDir, name))
		if err != nil || !strings.Contains(string(b), settings) || !strings.Contains(string(b), reason) {
			t.Errorf("%s (%v) lacks %q or the reason:\n%s", name, err, settings, b)
		}
	}
	// Without thresholds of their own the reason names the run's.
	res = agentv(t, dir, nil, "eval", "plain.yaml")
	if want := "Outcome: FAIL — 1 failed case below case threshold 0.80 (max-failures 0)\n"; !strings.Contains(res.stdout, want) {
		t.Errorf("want %q:\n%s%s", want, res.stdout, res.stderr)
	}
}
