package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentv/action/suite"
)

// lockedBuffer lets the test read what the writer's timer may write concurrently.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int // write calls
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return l.b.Write(p)
}

func (l *lockedBuffer) snapshot() ([]byte, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes()), l.n
}

func TestWriterBatchesAndFlushes(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	w := NewWriter(&out)
	var want []string
	for i := range 2000 {
		r := &Record{EvalID: fmt.Sprintf("case-%04d", i), Verdict: VerdictPass, CandidateAnswer: string(bytes.Repeat([]byte("x"), 100))}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r.EvalID)
	}
	if _, n := out.snapshot(); n == 0 || n >= 2000 {
		t.Errorf("%d write calls for 2000 records before Flush, want batches", n)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	data, _ := out.snapshot()
	recs, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.EvalID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterErrorSticks(t *testing.T) {
	t.Parallel()
	w := NewWriter(failingWriter{})
	if err := w.Write(&Record{EvalID: "a"}); err != nil {
		t.Fatalf("write before flush: %v", err)
	}
	if err := w.Flush(); err == nil || err.Error() != "could not write results: disk full" {
		t.Fatalf("flush error = %v", err)
	}
	if err := w.Write(&Record{EvalID: "b"}); err == nil {
		t.Fatal("write after a failed flush must fail")
	}
}

// A record JSON cannot hold as it is still becomes one valid line: non-finite numbers read
// back as absent, a raw value that is not JSON as a string, and pretty-printed raw values
// are compacted onto the line.
func TestMarshalOddValues(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	tests := []struct {
		name string
		rec  Record
		want string // a fragment of the line
	}{
		{"non-finite numbers", Record{Score: math.NaN(), TraceSummary: &TraceSummary{CostUSD: &inf},
			EvaluatorResults: []EvaluatorResult{{Name: "j", Score: inf, Weight: math.NaN()}}}, `"score":0,`},
		{"raw value that is not JSON", Record{EvaluatorResults: []EvaluatorResult{{Name: "j", Details: json.RawMessage(`{"a":`)}}},
			`"details":"{\"a\":"`},
		{"pretty-printed raw value", Record{EvaluatorResults: []EvaluatorResult{{Name: "j", Details: json.RawMessage("{\n  \"a\": 1\n}")}}},
			`"details":{"a":1}`},
		{"HTML characters stay", Record{CandidateAnswer: "<b>&</b>"}, `"candidate_answer":"<b>&</b>"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := marshal(&tt.rec)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) || bytes.ContainsAny(b, "\n\r") || !bytes.Contains(b, []byte(tt.want)) {
				t.Errorf("line = %s, want one valid JSON line holding %s", b, tt.want)
			}
		})
	}
}

// TestWarningsShape pins how a record's warnings are written: the diagnostic type they share
// with loading must not add its severity, nor an empty file, to the results file.
func TestWarningsShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		w    suite.Diagnostic
		want string
	}{
		{"positioned", suite.Diagnostic{File: "evals/a.yaml", Line: 2, Col: 3, Kind: "template", Message: "m"},
			`"warnings":[{"file":"evals/a.yaml","line":2,"col":3,"kind":"template","message":"m"}]`},
		{"no file or position", suite.Diagnostic{Message: "m"}, `"warnings":[{"message":"m"}]`},
		{"severity is not written", suite.Diagnostic{Severity: suite.SeverityError, File: "f", Message: "m"}, `"warnings":[{"file":"f","message":"m"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := marshal(&Record{EvalID: "c", Warnings: []suite.Diagnostic{tt.w}})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(tt.want)) {
				t.Errorf("line = %s, want it to hold %s", b, tt.want)
			}
		})
	}
}

// marshal is a record as Writer writes its line, without the newline.
func marshal(r *Record) ([]byte, error) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write(r); err != nil {
		return nil, err
	}
	err := w.Flush()
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), err
}
