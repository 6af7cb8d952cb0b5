package results

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendRun(t *testing.T) {
	t.Parallel()
	half := 0.5
	tests := []struct {
		name string
		rec  RunRecord
		want string
	}{
		{"start of a streamed run", RunRecord{Kind: KindRunStart, Format: RunFormat, Version: "v1.2.3", Timestamp: "2026-01-02T03:04:05.000Z",
			Gate: &RunGate{CaseThreshold: 0.8, MinScore: &half}},
			`{"record":"run_start","format":1,"agentv_version":"v1.2.3","timestamp":"2026-01-02T03:04:05.000Z","gate":{"case_threshold":0.8,"min_score":0.5,"max_failures":0,"max_errors":0}}`},
		{"start of a run compared with a baseline", RunRecord{Kind: KindRunStart, Format: RunFormat, Timestamp: "t", Gate: &RunGate{CaseThreshold: 0.8},
			Baseline: &RunBaseline{Source: "run 41 on main (0123456)", SHA256: "ab12", Cases: 6, RegressionMargin: 0.1, MaxRegressions: new(0)}},
			`{"record":"run_start","format":1,"timestamp":"t","gate":{"case_threshold":0.8,"max_failures":0,"max_errors":0},` +
				`"baseline":{"source":"run 41 on main (0123456)","sha256":"ab12","cases":6,"regression_margin":0.1,"max_regressions":0}}`},
		{"end of a cancelled run", RunRecord{Kind: KindRunEnd, Format: RunFormat, Timestamp: "t", Planned: new(200), PlannedComplete: new(bool),
			Outcome: "invalid", Reason: "run cancelled: 12 of at least 200 cases finished", Cases: new(12), Passed: 12, MeanScore: &half,
			Cancelled: true, Problems: []string{"run cancelled: 12 of at least 200 cases finished", "<b> & </b>"}, DurationMS: 5},
			`{"record":"run_end","format":1,"timestamp":"t","planned":200,"planned_complete":false,"outcome":"invalid","reason":"run cancelled: 12 of at least 200 cases finished",` +
				`"cases":12,"passed":12,"mean_score":0.5,"cancelled":true,"problems":["run cancelled: 12 of at least 200 cases finished","<b> & </b>"],"duration_ms":5}`},
		{"a mean JSON cannot hold is left out", RunRecord{Kind: KindRunEnd, Format: RunFormat, Timestamp: "t", Cases: new(0), MeanScore: func() *float64 { f := math.NaN(); return &f }()},
			`{"record":"run_end","format":1,"timestamp":"t","cases":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := string(AppendRun([]byte("x"), &tt.rec))
			if got != "x"+tt.want {
				t.Errorf("AppendRun =\n%s\nwant\n%s", got, "x"+tt.want)
			}
		})
	}
}

// Case readers skip run records; ScanLines hands both kinds over with their line numbers, also
// run records of a kind this version does not know.
func TestScanRunRecords(t *testing.T) {
	t.Parallel()
	in := `{"record":"run_start","format":1,"timestamp":"s","gate":{"case_threshold":0.8,"max_failures":0,"max_errors":0}}
{"eval_id":"a","score":1,"verdict":"pass"}

{"eval_id":"b","score":0.5,"verdict":"fail"}
{"record":"shard_merge","format":9}
{"record":"run_end","format":1,"timestamp":"e","planned":2,"cases":2,"problems":["x"],"duration_ms":7}
`
	recs, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.EvalID)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	var got []string
	err = scanLines(strings.NewReader(in), Visitor{
		Case: func(r *Record, line int) error { got = append(got, r.EvalID+"@"+itoa(line)); return nil },
		Run: func(r *RunRecord, line int) error {
			got = append(got, r.Kind+"@"+itoa(line))
			if r.Kind == KindRunEnd && (r.Planned == nil || *r.Planned != 2 || r.DurationMS != 7 || len(r.Problems) != 1) {
				t.Errorf("end record = %+v", r)
			}
			return nil
		},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run_start@1", "a@2", "b@4", "shard_merge@5", "run_end@6"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ScanLines (-want +got):\n%s", diff)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestReadRunStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, content string
		want          bool
	}{
		{"start first", "\n" + `{"record":"run_start","format":1,"gate":{"case_threshold":0.6,"max_failures":2,"max_errors":0}}` + "\n{}\n", true},
		{"case first", `{"eval_id":"a"}` + "\n" + `{"record":"run_start","format":1}` + "\n", false},
		{"empty", "", false},
		{"not json", "{", false},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
		if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadRunStart(path)
		if err != nil || (got != nil) != tt.want {
			t.Errorf("%s: ReadRunStart = %+v, %v; want a record: %v", tt.name, got, err, tt.want)
		}
		if got != nil && (got.Gate == nil || got.Gate.CaseThreshold != 0.6 || got.Gate.MaxFailures != 2) {
			t.Errorf("%s: gate = %+v", tt.name, got.Gate)
		}
	}
	if _, err := ReadRunStart(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
}
