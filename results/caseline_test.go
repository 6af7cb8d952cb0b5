package results_test

import (
	"encoding/json"
	"testing"

	"github.com/agentv/action/results"
)

// TestCaseLineCheck: both id and dataset spellings, run records skipped, a 4.x execution error
// given a message, and a line without an id or a score named in its error.
func TestCaseLineCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, id, dataset, errText, err string
		isCase                          bool
	}{
		{line: `{"eval_id":"a","dataset":"d","score":1}`, id: "a", dataset: "d", isCase: true},
		{line: `{"test_id":" b ","suite":"s","score":0.5,"execution_status":"execution_error"}`, id: "b", dataset: "s", errText: "execution error", isCase: true},
		{line: `{"test_id":"c","suite":"s","score":0,"execution_status":"execution_error","error":"boom"}`, id: "c", dataset: "s", errText: "boom", isCase: true},
		{line: `{"record":"run","eval_id":"x"}`},
		{line: `{"dataset":"d","score":1}`, err: "line 7: field eval_id: missing (a case record names its case)", isCase: true},
		{line: `{"eval_id":"a"}`, err: `line 7: field score: missing in case "a"`, isCase: true},
	} {
		var l results.CaseLine
		if err := json.Unmarshal([]byte(tc.line), &l); err != nil {
			t.Fatal(err)
		}
		id, isCase, err := l.Check(7)
		if got := errString(err); got != tc.err || isCase != tc.isCase {
			t.Errorf("%s: isCase %v, error %q; want %v, %q", tc.line, isCase, got, tc.isCase, tc.err)
			continue
		}
		if err == nil && isCase && (id != tc.id || l.Dataset != tc.dataset || l.Error != tc.errText) {
			t.Errorf("%s: id %q dataset %q error %q; want %q %q %q", tc.line, id, l.Dataset, l.Error, tc.id, tc.dataset, tc.errText)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
