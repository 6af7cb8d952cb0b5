package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// readResults re-grades each record with the report's threshold, keeps the records before a
// malformed line, and says which line broke.
func TestReadResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	lines := []string{
		`{"eval_id":"a","score":0.7,"verdict":"fail","file":"e.yaml","line":1}`,
		`{"eval_id":"b","score":0.9,"verdict":"pass","file":"e.yaml","line":5}`,
		`{"eval_id":"c","score":1,"verdict":"pass","error":"timed out","file":"e.yaml","line":9}`,
		`{broken`,
		`{"eval_id":"d","score":1,"verdict":"pass","file":"e.yaml","line":13}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := readResults(path, t.TempDir(), "", report.DetailsFailures, 0.6)
	defer out.Close()
	if p := strings.Join(out.Problems, "\n"); !strings.Contains(p, "line 4") {
		t.Errorf("problems = %q, want one naming line 4", p)
	}
	var got []string
	for _, c := range out.Cases {
		got = append(got, c.EvalID+"="+string(c.Verdict))
	}
	if want := "a=pass b=pass c=error"; strings.Join(got, " ") != want {
		t.Errorf("cases = %v, want %s", got, want)
	}
	if out.JUnitParts == nil {
		t.Error("no JUnit spool")
	}
	var r results.Record
	regrade(&r, 0.8)
	if r.Verdict != results.VerdictFail {
		t.Errorf("score 0 at threshold 0.8: %s, want fail", r.Verdict)
	}
}
