package results

import (
	"cmp"
	"fmt"
	"strings"
)

// CaseLine is the part of a results line that names a case and its outcome, as a baseline and
// a history read earlier runs: this program's records, AgentV 2.5's, and 4.x's index.jsonl
// rows (test_id, suite, execution_status). Embed it to read more fields of the same line.
type CaseLine struct {
	Kind            *string  `json:"record"` // set on run records
	EvalID          string   `json:"eval_id"`
	TestID          string   `json:"test_id"` // AgentV 4.x's id
	Dataset         string   `json:"dataset"`
	Suite           string   `json:"suite"` // AgentV 4.x's dataset
	Target          string   `json:"target"`
	Score           *float64 `json:"score"`
	Verdict         string   `json:"verdict"`
	Error           string   `json:"error"`
	ExecutionStatus string   `json:"execution_status"` // AgentV 4.x: ok, quality_failure, execution_error
}

// Check settles line n once decoded: isCase is false for a run record; otherwise id is the
// case's id (either spelling), Dataset is filled from 4.x's suite, an execution_error without a
// message gets one, and a line without an id or a score is an error naming it.
func (l *CaseLine) Check(n int) (id string, isCase bool, err error) {
	if l.Kind != nil {
		return "", false, nil
	}
	id = cmp.Or(strings.TrimSpace(l.EvalID), strings.TrimSpace(l.TestID))
	if id == "" {
		return "", true, fmt.Errorf("line %d: field eval_id: missing (a case record names its case)", n)
	}
	if l.Score == nil {
		return "", true, fmt.Errorf("line %d: field score: missing in case %q", n, id)
	}
	l.Dataset = cmp.Or(l.Dataset, l.Suite)
	if l.ExecutionStatus == "execution_error" && l.Error == "" {
		l.Error = "execution error"
	}
	return id, true, nil
}
