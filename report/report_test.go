package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/gate"
	"github.com/agentv/action/internal/golden"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

const testMarker = "<!-- agentv-action:v1 key=ci/eval -->"

// hostileSize is how large the tests grow the hostile record's answer and reasoning.
const hostileSize = 200 << 10

// loadFixture reads testdata/records.jsonl and grows the hostile record to about 200 KB of
// answer and reasoning, with invalid UTF-8 (an encoded surrogate, a stray byte) that JSON
// cannot carry.
func loadFixture(t testing.TB) []*results.Record {
	t.Helper()
	recs := readRecords(t, filepath.Join("testdata", "records.jsonl"))
	for _, r := range recs {
		if strings.HasPrefix(r.EvalID, "hostile") {
			chunk := r.CandidateAnswer + "\xed\xa0\x80\xff\n"
			grow := strings.Repeat(chunk, hostileSize/len(chunk)+1)
			r.CandidateAnswer = grow
			r.Reasoning = grow
			r.EvaluatorResults[0].Reasoning = grow
		}
	}
	return recs
}

// fixtureRun is the run the golden files render: the fixture records, the default gate,
// warnings (one repeating a record's warning), links and fixed times.
func fixtureRun(t testing.TB) *Run {
	t.Helper()
	recs := loadFixture(t)
	opts := gate.Defaults()
	counts := tally(recs)
	return &Run{
		Records:  recs,
		Decision: gate.Decide(counts, opts),
		Gate:     opts,
		Counts:   counts,
		Diagnostics: []suite.Diagnostic{
			{File: "evals/smoke.yaml", Line: 3, Col: 1, Kind: "unknown-key", Message: `unknown key "note" (ignored)`},
			{File: "evals/prompts/judge.md", Line: 3, Col: 5, Kind: "template", CaseID: "refund-policy",
				Message: "Custom evaluator template at evals/prompts/judge.md is missing required fields: candidate_answer or expected_messages"},
		},
		Links: Links{
			ServerURL: "https://github.com", Repo: "agentv/demo",
			SHA: "0123456789abcdef0123456789abcdef01234567", RunURL: "https://github.com/agentv/demo/actions/runs/42",
		},
		Version:  "1.2.3",
		Targets:  []string{"default", "agent"},
		Started:  time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC),
		Duration: 6*time.Minute + 2*time.Second,
	}
}

// invalidRun has no records and a configuration error: what a broken suite produces.
func invalidRun() *Run {
	opts := gate.Defaults()
	counts := gate.Counts{Problems: []string{`evals/broken.yaml:4:3: case "x" has no id`}}
	return &Run{
		Decision: gate.Decide(counts, opts),
		Gate:     opts,
		Counts:   counts,
		Diagnostics: []suite.Diagnostic{
			{File: "evals/broken.yaml", Line: 4, Col: 3, Severity: suite.SeverityError, Kind: "schema", Message: `case "x" has no id`},
			{File: "targets.yaml", Line: 9, Col: 5, Kind: "unknown-setting", Message: `unknown setting "tempature"`},
		},
		Version: "1.2.3",
	}
}

// skippedRun is a fork pull request whose secrets were withheld: nothing ran.
func skippedRun() *Run {
	opts := gate.Defaults()
	counts := gate.Counts{SkipReason: "fork pull request: secrets are not available, so no eval ran (see the workflow_run recipe)"}
	return &Run{Decision: gate.Decide(counts, opts), Gate: opts, Counts: counts, Version: "1.2.3"}
}

// checkGolden compares got with testdata/golden/name (go test -update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), got)
}

func TestGolden(t *testing.T) {
	t.Parallel()
	junit := func(run *Run) string {
		var b bytes.Buffer
		if err := JUnit(&b, run); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	console := func(color bool) func(*Run) string {
		return func(run *Run) string {
			var b bytes.Buffer
			Console(&b, run, color)
			return b.String()
		}
	}
	withDetails := func(d DetailLevel, noLinks bool) func(*Run) {
		return func(r *Run) {
			r.Details = d
			if noLinks {
				r.Links = Links{}
			}
		}
	}
	tests := []struct {
		name   string
		run    func(testing.TB) *Run
		adjust func(*Run)
		render func(*Run) string
	}{
		{"junit.xml", fixtureRun, nil, junit},
		{"summary.md", fixtureRun, nil, Summary},
		{"comment.md", fixtureRun, nil, func(r *Run) string { return Comment(r, testMarker) }},
		{"summary-details-all-nolinks.md", fixtureRun, withDetails(DetailsAll, true), Summary},
		{"comment-details-none.md", fixtureRun, withDetails(DetailsNone, false), func(r *Run) string { return Comment(r, testMarker) }},
		{"console.txt", fixtureRun, nil, console(false)},
		{"console-color.txt", fixtureRun, nil, console(true)},
		{"progress.txt", fixtureRun, nil, func(r *Run) string {
			var b bytes.Buffer
			for i, rec := range r.Records {
				Progress(&b, rec, i+1, len(r.Records), false)
			}
			return b.String()
		}},
		{"invalid-junit.xml", func(testing.TB) *Run { return invalidRun() }, nil, junit},
		{"invalid-summary.md", func(testing.TB) *Run { return invalidRun() }, nil, Summary},
		{"invalid-console.txt", func(testing.TB) *Run { return invalidRun() }, nil, console(false)},
		{"skipped-junit.xml", func(testing.TB) *Run { return skippedRun() }, nil, junit},
		{"skipped-comment.md", func(testing.TB) *Run { return skippedRun() }, nil, func(r *Run) string { return Comment(r, testMarker) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := tt.run(t)
			if tt.adjust != nil {
				tt.adjust(run)
			}
			checkGolden(t, tt.name, tt.render(run))
		})
	}
}

func TestParseDetailLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    DetailLevel
		wantErr bool
	}{
		{"", DetailsFailures, false},
		{"failures", DetailsFailures, false},
		{" ALL ", DetailsAll, false},
		{"none", DetailsNone, false},
		{"some", DetailsFailures, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDetailLevel(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseDetailLevel(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// The renderers read records and must not reorder the caller's slice.
func TestRenderersKeepCallerOrder(t *testing.T) {
	t.Parallel()
	run := fixtureRun(t)
	before := make([]string, len(run.Records))
	for i, r := range run.Records {
		before[i] = r.EvalID
	}
	var b bytes.Buffer
	if err := JUnit(&b, run); err != nil {
		t.Fatal(err)
	}
	Summary(run)
	Comment(run, testMarker)
	Console(&b, run, false)
	var after []string
	for _, r := range run.Records {
		after = append(after, r.EvalID)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("records reordered (-before +after):\n%s", diff)
	}
}

func TestNilRun(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := JUnit(&b, nil); err != nil {
		t.Fatal(err)
	}
	Console(&b, nil, false)
	if !strings.Contains(Summary(nil), "No eval case ran") || !strings.HasPrefix(Comment(nil, testMarker), testMarker) {
		t.Error("nil run should render an empty report")
	}
}

// readRecords reads the case records of a results file.
func readRecords(t testing.TB, path string) []*results.Record {
	t.Helper()
	var recs []*results.Record
	if err := results.ScanFile(path, func(r *results.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

// jsonlOf is records as the lines of a results file.
func jsonlOf(t testing.TB, recs ...*results.Record) string {
	t.Helper()
	var b strings.Builder
	w := results.NewWriter(&b)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tally counts records as the command counts its cases.
func tally(recs []*results.Record) gate.Counts {
	return gate.TallyOf(recs, func(r *results.Record) (results.Verdict, float64, *float64) {
		return r.Verdict, r.Score, r.CaseThreshold
	})
}
