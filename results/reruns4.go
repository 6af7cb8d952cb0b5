package results

import (
	"bytes"
	"encoding/json"
	"io"

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
	last := map[[3]string]int{}
	var out map[int]bool
	err = EachLine(f, func(b []byte, n int) error {
		var row struct {
			Kind   *string `json:"record"`
			EvalID string  `json:"eval_id"`
			TestID *string `json:"test_id"`
			Suite  string  `json:"suite"`
			Target string  `json:"target"`
		}
		if json.Unmarshal(b, &row) != nil || row.Kind != nil || row.EvalID != "" || row.TestID == nil {
			return nil
		}
		k := [3]string{row.Suite, *row.TestID, row.Target}
		if prev, ok := last[k]; ok {
			if out == nil {
				out = map[int]bool{}
			}
			out[prev] = true
		}
		last[k] = n
		return nil
	})
	return out, err
}

// freshRows are the index rows of the records a rerun ran, in order, by test and target.
type freshRows struct {
	buf   bytes.Buffer
	byKey map[[3]string][]byte
}

func (f *freshRows) add(row *v4OutRow) error {
	start := f.buf.Len()
	if err := newEncoder(&f.buf).Encode(row); err != nil {
		f.buf.Truncate(start)
		return err
	}
	f.byKey[[3]string{row.Suite, row.TestID, row.Target}] = bytes.Clone(f.buf.Bytes()[start:])
	return nil
}

// appendRows writes the index.jsonl of a run rerun as 4.42.4's --rerun-failed leaves it
// (run-artifacts.ts, rewriteExistingIndexRecords; run-eval.ts:1482): the earlier rows, those
// of tests run again replaced by their new rows, then the new rows appended. A row of another
// suite is never replaced (4.42.4 matches by test id and target alone); a line that does not
// parse is kept (4.42.4 drops it).
func appendRows(w io.Writer, earlier []byte, fresh *freshRows) error {
	for _, line := range bytes.Split(earlier, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		var row struct {
			TestID string `json:"test_id"`
			Suite  string `json:"suite"`
			Target string `json:"target"`
		}
		if json.Unmarshal(t, &row) == nil && row.TestID != "" {
			if b, ok := fresh.byKey[[3]string{row.Suite, row.TestID, row.Target}]; ok {
				t = bytes.TrimSuffix(b, []byte("\n"))
			}
		}
		if _, err := w.Write(append(append([]byte{}, t...), '\n')); err != nil {
			return err
		}
	}
	_, err := w.Write(fresh.buf.Bytes())
	return err
}
