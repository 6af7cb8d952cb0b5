package history

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runs reads one results file a run, oldest first.
func runs(t *testing.T, files ...string) *History {
	t.Helper()
	h := New()
	for i, f := range files {
		if err := h.ReadRun(Run{Label: string(rune('A' + i))}, strings.NewReader(f), 0.5); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	return h
}

const (
	passA  = `{"eval_id":"a","dataset":"d","score":1,"verdict":"pass"}` + "\n"
	failA  = `{"eval_id":"a","dataset":"d","score":0.2,"verdict":"fail"}` + "\n"
	errA   = `{"eval_id":"a","dataset":"d","score":0.9,"verdict":"error","error":"timeout"}` + "\n"
	passB  = `{"eval_id":"b","dataset":"e","score":0.8,"verdict":"pass"}` + "\n"
	runRec = `{"record":"run_start","format":1,"timestamp":"2026-01-02T00:00:00Z"}` + "\n"
)

func TestFailingSince(t *testing.T) {
	t.Parallel()
	a := Key{Dataset: "d", ID: "a"}
	for _, tc := range []struct {
		name  string
		runs  []string
		since int
		ok    bool
	}{
		{"passes now", []string{failA, failA, passA}, 0, false},
		{"fails in every run", []string{failA, errA, failA}, 0, true},
		{"a pass breaks the streak", []string{failA, passA, failA, errA}, 2, true},
		{"absent breaks the streak", []string{failA, passB, failA}, 2, true},
		{"new and failing", []string{passB, passB, failA}, 2, true},
		{"not in the newest run", []string{failA, passB}, 0, false},
	} {
		h := runs(t, tc.runs...)
		since, ok := h.FailingSince(a)
		if since != tc.since || ok != tc.ok {
			t.Errorf("%s: FailingSince = %d, %v; want %d, %v", tc.name, since, ok, tc.since, tc.ok)
		}
	}
}

func TestTrendAndSeries(t *testing.T) {
	t.Parallel()
	h := runs(t, runRec+passA+passB, failA, errA+passB)
	tr := h.Trend()
	if len(tr) != 2 || tr[0].Dataset != "d" || tr[1].Dataset != "e" {
		t.Fatalf("datasets %+v", tr)
	}
	d, e := tr[0], tr[1]
	if d.PassRate[0] != 1 || d.PassRate[1] != 0 || d.Mean[1] != 0.2 || d.Mean[2] != 0 || d.Cases[2] != 1 {
		t.Errorf("dataset d: %+v", d)
	}
	if e.Cases[1] != 0 || !math.IsNaN(e.PassRate[1]) || e.Mean[2] != 0.8 {
		t.Errorf("dataset e: %+v", e)
	}
	got := h.Series(Key{Dataset: "e", ID: "b"})
	if len(got) != 2 || got[0].Run != "A" || got[1].Run != "C" || got[1].Status != "pass" {
		t.Errorf("series of b: %+v", got)
	}
	pts := h.Points()
	if a := pts[Key{Dataset: "d", ID: "a"}]; len(a) != 3 || a[2].Status != "error" || a[2].Score != 0 {
		t.Errorf("points of a: %+v", a)
	}
}

func TestReadRunFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line string
		want       Status
	}{
		{"2.5 without verdict, above threshold", `{"eval_id":"a","score":0.7}`, Pass},
		{"2.5 without verdict, below", `{"eval_id":"a","score":0.3}`, Fail},
		{"4.x index row", `{"test_id":"a","suite":"s","score":0.9,"execution_status":"ok"}`, Pass},
		{"4.x quality failure", `{"test_id":"a","suite":"s","score":0.9,"execution_status":"quality_failure"}`, Fail},
		{"4.x execution error", `{"test_id":"a","score":0.9,"execution_status":"execution_error"}`, Error},
		{"unknown verdict", `{"eval_id":"a","score":1,"verdict":"maybe"}`, Error},
	} {
		h := runs(t, tc.line)
		var got Status
		for k := range h.index {
			got = h.Status(k, 0)
		}
		if got != tc.want {
			t.Errorf("%s: status %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestReadRunErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{passA + "not json\n", "line 2: not a results record"},
		{`{"dataset":"d","score":1}`, "line 1: field eval_id: missing"},
		{`{"eval_id":"x"}`, `line 1: field score: missing in case "x"`},
	} {
		h := New()
		err := h.ReadRun(Run{}, strings.NewReader(tc.in), 0.5)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
		if h.Len() != 0 {
			t.Errorf("%q: a run that could not be read was added", tc.in)
		}
	}
}

func TestFilesOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, body string, mtime time.Time) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The start record wins over the modification time (a copied folder gets a new one).
	newest := write("zz-copied/results.jsonl", `{"record":"run_start","format":1,"timestamp":"2026-03-01T00:00:00Z"}`+"\n"+passA, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	oldest := write("b/results.jsonl", passA, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	middle := write("a/results.jsonl", failA, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	fs, err := Files([]string{newest, middle, oldest}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, f := range fs {
		labels = append(labels, f.Run.Label)
	}
	if got := strings.Join(labels, " "); got != "b a zz-copied" {
		t.Errorf("order %q, want b a zz-copied", got)
	}
	if fs, _ := Files([]string{newest, middle, oldest}, 2); len(fs) != 2 || fs[0].Run.Label != "a" {
		t.Errorf("keep 2: %+v", fs)
	}
	if _, err := Files([]string{filepath.Join(dir, "missing.jsonl")}, 0); err == nil {
		t.Error("a missing file is no error")
	}
	h, err := ReadFiles(fs, 0.5)
	if err != nil || h.Len() != 3 {
		t.Fatalf("ReadFiles: %v, %d runs", err, h.Len())
	}
}
