package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentv/action/gate"
)

// trialsRun renders testdata/trials.jsonl: cases run as trials under each strategy, flaky
// ones that passed (one with an errored trial) and failed, a steady one, a steady failure
// and a case that ran once.
func trialsRun(t testing.TB) *Run {
	t.Helper()
	recs := readRecords(t, filepath.Join("testdata", "trials.jsonl"))
	opts := gate.Defaults()
	opts.MaxFailures = 2
	counts := tally(recs)
	return &Run{
		Records: recs, Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts,
		Links: Links{ServerURL: "https://github.com", Repo: "agentv/demo",
			SHA: "0123456789abcdef0123456789abcdef01234567", RunURL: "https://github.com/agentv/demo/actions/runs/42"},
		Version: "1.2.3", Targets: []string{"default"},
		Started: time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC), Duration: 3 * time.Minute,
	}
}

// TestGoldenTrials checks every report of a run with trials: the flaky marker and count in
// the summary and the comment, the trials in JUnit (system-out, Surefire's flakyFailure and
// flakyError on a passing flaky case, the suite's flaky property) and on the console.
func TestGoldenTrials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		render func(*Run) string
	}{
		{"trials-summary.md", Summary},
		{"trials-comment-details-all.md", func(r *Run) string { r.Details = DetailsAll; return Comment(r, testMarker) }},
		{"trials-junit.xml", func(r *Run) string {
			var b bytes.Buffer
			if err := JUnit(&b, r); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}},
		{"trials-console.txt", func(r *Run) string { var b bytes.Buffer; Console(&b, r, false); return b.String() }},
		{"trials-progress.txt", func(r *Run) string {
			var b bytes.Buffer
			for i, rec := range r.Records {
				Progress(&b, rec, i+1, len(r.Records), false)
			}
			return b.String()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkGolden(t, tt.name, tt.render(trialsRun(t)))
		})
	}
}

// TestTrialsMarkers checks the markers the goldens carry, so a golden rewritten by -update
// cannot lose them unnoticed: three flaky cases counted in the headline, each flaky row
// marked with its trials, and a spooled JUnit (the Collector's) equal to one rendered from
// the records.
func TestTrialsMarkers(t *testing.T) {
	t.Parallel()
	run := trialsRun(t)
	if n := Flaky(run); n != 3 {
		t.Errorf("Flaky = %d, want 3", n)
	}
	sum := Summary(run)
	for _, want := range []string{"🎲 3 flaky", "[shipping-cost](", "🎲 **flaky** <sub>2/4 trials passed</sub>", "<sub>1/2 trials passed</sub>",
		"2/4 trials passed; trial 1: Does not name the &#36;50 minimum", "🎲 **Flaky** (trials disagreed; each counts by its aggregate verdict): ✅ [refund-window]("} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Contains(sum, "greeting](https://github.com/agentv/demo/blob/0123456789abcdef0123456789abcdef01234567/evals/trials.eval.yaml#L20) 🎲") {
		t.Error("the steady case is marked flaky")
	}
	var fromRecords bytes.Buffer
	if err := JUnit(&fromRecords, run); err != nil {
		t.Fatal(err)
	}
	col := NewCollector(DetailsFailures, run.Gate.CaseThreshold, 0)
	defer col.Close()
	for _, r := range run.Records {
		col.Add(r)
	}
	spooled := *run
	spooled.Records, spooled.Cases, spooled.JUnitParts = nil, col.Cases(), col.Parts()
	var fromSpool bytes.Buffer
	if err := JUnit(&fromSpool, &spooled); err != nil {
		t.Fatal(err)
	}
	if fromSpool.String() != fromRecords.String() {
		t.Errorf("spooled JUnit differs from JUnit rendered from the records")
	}
	for _, want := range []string{`<property name="flaky" value="3">`, `<flakyFailure message="trial 1: score 0.500 below case threshold 0.800" type="below-threshold">`,
		`<flakyError message="trial 1: the invocation timed out`, "flaky: true", "trials: 2/4 passed (mean), flaky"} {
		if !strings.Contains(fromRecords.String(), want) {
			t.Errorf("JUnit lacks %q", want)
		}
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (apt-get install libxml2-utils); JUnit schema validation skipped")
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, fromRecords.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(t.Context(), xmllint, "--noout", "--schema", xsdPath, path).CombinedOutput(); err != nil {
		t.Fatalf("xmllint rejected the JUnit file with trials: %v\n%s", err, out)
	}
}
