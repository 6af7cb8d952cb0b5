package results

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentv/action/internal/safefile"
)

// Marshal encodes a record as one JSON line (no trailing newline) without HTML escaping,
// so `<`, `>` and `&` in model text stay readable, as in AgentV's files.
func Marshal(r *Record) ([]byte, error) {
	return AppendRecord(nil, r), nil
}

// Writer appends records to a JSONL file as cases finish. It is safe for concurrent use.
// Records are batched: a batch is written when it reaches flushBytes or flushDelay after
// its first record, whichever comes first, so a large fast run does not pay one write call
// per case while an interrupted or killed run still keeps every case that finished more
// than flushDelay ago. Flush writes what is pending (call it before closing the file).
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte // pending lines
	timer *time.Timer
	err   error
}

const (
	flushBytes = 64 << 10
	flushDelay = 100 * time.Millisecond
)

// NewWriter returns a writer appending to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write appends one record.
func (w *Writer) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = append(AppendRecord(w.buf, r), '\n')
	if len(w.buf) >= flushBytes {
		return w.flushLocked()
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(flushDelay, func() { _ = w.Flush() })
	}
	return nil
}

// WriteRun appends a run record and writes it at once with everything pending: the start
// record is on disk before any case runs, the end record when the run is over.
func (w *Writer) WriteRun(r *RunRecord) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = append(AppendRun(w.buf, r), '\n')
	return w.flushLocked()
}

// Flush writes the pending records.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if len(w.buf) == 0 || w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("could not write results: %w", err)
	}
	if cap(w.buf) > 4*flushBytes { // one huge record must not pin its buffer for the run
		w.buf = nil
	} else {
		w.buf = w.buf[:0]
	}
	return w.err
}

// Read parses a results JSONL stream (see Scan). On an error it returns the records before it.
func Read(r io.Reader) ([]*Record, error) {
	var out []*Record
	err := Scan(r, func(rec *Record) error {
		out = append(out, rec)
		return nil
	})
	return out, err
}

// ReadFile parses a results JSONL file.
func ReadFile(path string) ([]*Record, error) {
	f, err := safefile.Open(path)
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
