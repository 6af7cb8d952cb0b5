package results

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
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
