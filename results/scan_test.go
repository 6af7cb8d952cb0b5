package results

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScan(t *testing.T) {
	t.Parallel()
	in := `{"eval_id":"a","score":1,"verdict":"pass"}

{"eval_id":"b","score":0.5,"verdict":"fail"}
not json
{"eval_id":"c"}
`
	var ids []string
	err := Scan(strings.NewReader(in), func(r *Record) error { ids = append(ids, r.EvalID); return nil })
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("err = %v, want one naming line 4", err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ids); diff != "" {
		t.Errorf("records before the bad line (-want +got):\n%s", diff)
	}
	stop := errors.New("stop")
	n := 0
	err = Scan(strings.NewReader(in), func(*Record) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn's error: err = %v after %d records, want stop after 1", err, n)
	}
	// Scan reads what Read reads.
	good := strings.Join(strings.Split(in, "\n")[:3], "\n")
	want, err := Read(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	var got []*Record
	if err := Scan(strings.NewReader(good), func(r *Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scan and Read differ (-Read +Scan):\n%s", diff)
	}
}
