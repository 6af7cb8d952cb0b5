package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAssertionsEndToEnd runs the deterministic assertion types through the binary against
// a mock target: the case scores are AgentV 4.42.4's for the same entries and answer, and
// bad settings are load errors at their positions.
func TestAssertionsEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, name := range []string{"suite.yaml", "bad.yaml", "targets.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "assertions", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	writeFiles(t, dir, files)

	res := agentv(t, dir, nil, "eval", "suite.yaml")
	if res.code != 1 {
		t.Errorf("eval: exit %d, want 1 (failed cases)\n%s%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]float64{"pass": 1, "partial": 0.75, "negated": 0.5, "required": 0}
	recs := res.byID()
	for id, score := range want {
		rec := recs[id]
		if rec == nil {
			t.Errorf("no record for %s\n%s%s", id, res.stdout, res.stderr)
			continue
		}
		if rec.Score != score || rec.Error != "" {
			t.Errorf("%s: score %v error %q, want %v", id, rec.Score, rec.Error, score)
		}
	}
	if rec := recs["required"]; rec != nil && !strings.Contains(strings.Join(rec.Misses, "\n"), `required evaluator "ends-with" scored 0.00, below its minimum 0.80`) {
		t.Errorf("required: misses %q lack the gate", rec.Misses)
	}

	// `required: true` gates at the run's case threshold.
	res = agentv(t, dir, nil, "eval", "suite.yaml", "--eval-id", "required", "--case-threshold", "0.5")
	if rec := res.byID()["required"]; rec == nil || !strings.Contains(strings.Join(rec.Misses, "\n"), "below its minimum 0.50") {
		t.Errorf("required with --case-threshold 0.5: the gate does not use the run's threshold\n%s%s", res.stdout, res.stderr)
	}

	res = agentv(t, dir, nil, "eval", "bad.yaml")
	if res.code != 2 || len(res.records) != 0 {
		t.Errorf("eval bad.yaml: exit %d, %d records; want 2 (invalid), none\n%s%s", res.code, len(res.records), res.stdout, res.stderr)
	}
	for _, w := range []string{
		`bad.yaml:5:33: contains value: must be a string, got the number 42`,
		`bad.yaml:6:30: regex value: invalid regular expression /(?i)42/: (?i) is not JavaScript syntax`,
		`bad.yaml:7:40: regex flags: unknown flag 'x' in "x"`,
		`bad.yaml:8:37: contains-all value: must be a list of strings, got a string`,
		`bad.yaml:9:45: equals required: must be true, false or a minimum score above 0 and at most 1, got 3`,
	} {
		if !strings.Contains(res.stdout+res.stderr, w) {
			t.Errorf("eval bad.yaml output lacks %q\n%s%s", w, res.stdout, res.stderr)
		}
	}
}

// TestAssertionValueShapesV4: in a 4.x file, a deterministic assertion whose value has a shape
// AgentV 4.42.4 does not read (a number or boolean for a text, a string for a list) is skipped
// with a positioned warning and the test is scored without it, and a list keeps its strings
// alone, as 4.42.4 does. The scores are 4.42.4's on testdata/assertions/values4.yaml, from
//
//	AGENTV_NO_UPDATE_CHECK=1 node node_modules/agentv/dist/cli.js eval values4.yaml -o run
//
// with the same mock target in .agentv/targets.yaml.
func TestAssertionValueShapesV4(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, name := range []string{"values4.yaml", "targets.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "assertions", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	writeFiles(t, dir, files)

	res := agentv(t, dir, nil, "eval", "values4.yaml")
	if res.code != 1 {
		t.Errorf("eval: exit %d, want 1 (failed cases, nothing invalid)\n%s%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]struct {
		score   float64
		graders []string
	}{
		"equals-number":           {1, []string{"contains-World"}},
		"contains-any-scalar":     {1, []string{"contains-World"}},
		"contains-all-mixed":      {1, []string{"contains-all-2"}},
		"icontains-any-no-string": {1, []string{"ends-with-42."}},
		"regex-bool":              {0, []string{"starts-with-Goodbye"}},
		"starts-with-number":      {0, []string{"icontains-all-3"}},
	}
	recs := res.byID()
	for id, w := range want {
		rec := recs[id]
		if rec == nil {
			t.Errorf("no record for %s\n%s%s", id, res.stdout, res.stderr)
			continue
		}
		var names []string
		for _, er := range rec.EvaluatorResults {
			names = append(names, er.Name)
		}
		if rec.Score != w.score || rec.Error != "" || strings.Join(names, ",") != strings.Join(w.graders, ",") {
			t.Errorf("%s: score %v error %q graders %q, want %v %q", id, rec.Score, rec.Error, names, w.score, w.graders)
		}
	}
	for _, w := range []string{
		`values4.yaml:9:31: equals assertion skipped, as AgentV 4.42.4 skips it: its value must be a string, got the number 42 (quote it to compare the text: "42")`,
		`values4.yaml:14:37: contains-any assertion skipped, as AgentV 4.42.4 skips it: its value must be a list of strings, got the string "Moon"`,
		`values4.yaml:19:45: contains-all value item ignored, as AgentV 4.42.4 ignores it: only strings are looked for, got the number 7`,
		`values4.yaml:23:38: icontains-any assertion skipped, as AgentV 4.42.4 skips it: its value holds no string`,
		`values4.yaml:34:52: icontains-all value item ignored, as AgentV 4.42.4 ignores it: only strings are looked for, got the number 3`,
		`values4.yaml:28:30: regex assertion skipped, as AgentV 4.42.4 skips it: its value must be a string, got the boolean true`,
	} {
		if !strings.Contains(res.stdout+res.stderr, w) {
			t.Errorf("eval output lacks %q\n%s%s", w, res.stdout, res.stderr)
		}
	}
}
