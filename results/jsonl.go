package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Marshal encodes a record as one JSON line (no trailing newline) without HTML escaping,
// so `<`, `>` and `&` in model text stay readable, as in AgentV's files.
func Marshal(r *Record) ([]byte, error) {
	return AppendRecord(nil, r), nil
}

// Writer appends records to a JSONL file as cases finish. It is safe for concurrent use.
// Each record is written with one write call and flushed, so an interrupted run keeps every
// finished case.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte // reused line buffer
	err error
}

// NewWriter returns a writer appending to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write appends one record.
func (w *Writer) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = append(AppendRecord(w.buf[:0], r), '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("could not write results: %w", err)
	}
	return w.err
}

// Read parses a results JSONL stream. Blank lines are skipped; a malformed line is an
// error naming its line number.
func Read(r io.Reader) ([]*Record, error) {
	var out []*Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 256<<20)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		rec := new(Record)
		if err := json.Unmarshal(b, rec); err != nil {
			return out, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// ReadFile parses a results JSONL file.
func ReadFile(path string) ([]*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := Read(f)
	if err != nil {
		return recs, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}
