package results

import (
	"bufio"
	"bytes"
	"encoding/json"

	"github.com/agentv/action/internal/safefile"
)

// AgentV 4.42.4's --rerun-failed appends the rows of the tests it ran again to the run's
// index.jsonl, so a test can have several rows on one target; its readers keep the last
// (run-artifacts.ts, deduplicateByTestIdTarget). This program's -o writes the same.

// supersededRows returns the lines of the 4.x index.jsonl at path whose test has a later row
// on the same target, nil when none has. Rows are keyed by suite too (4.42.4 keys by test id
// and target alone, and so drops one of two suites' tests of the same id). A line that does
// not parse is left for the scan to report.
func supersededRows(path string) (map[int]bool, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 256<<20)
	last := map[[3]string]int{}
	var out map[int]bool
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var row struct {
			Kind   *string `json:"record"`
			EvalID string  `json:"eval_id"`
			TestID *string `json:"test_id"`
			Suite  string  `json:"suite"`
			Target string  `json:"target"`
		}
		if json.Unmarshal(b, &row) != nil || row.Kind != nil || row.EvalID != "" || row.TestID == nil {
			continue
		}
		k := [3]string{row.Suite, *row.TestID, row.Target}
		if prev, ok := last[k]; ok {
			if out == nil {
				out = map[int]bool{}
			}
			out[prev] = true
		}
		last[k] = n
	}
	return out, sc.Err()
}
