package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sync"
	"time"
)

func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// encodeRecord writes r as one line. A record JSON cannot hold as it is (a non-finite
// number, a raw value that is not JSON) is written as encodable: the encoder writes
// nothing of a value it fails on, so the line is never half written.
func encodeRecord(enc *json.Encoder, r *Record) error {
	if err := enc.Encode(r); err == nil {
		return nil
	}
	if err := enc.Encode(encodable(r)); err != nil {
		return fmt.Errorf("could not encode the record of case %q: %w", r.EvalID, err)
	}
	return nil
}

// encodable returns a copy of r that JSON can hold: a non-finite score or weight becomes 0, a
// non-finite cost or duration is left out, and a raw value that is not JSON becomes a string.
func encodable(r *Record) *Record {
	c := *r
	c.Score = finite(c.Score)
	c.LMProviderRequest = validRaw(c.LMProviderRequest)
	c.AgentProviderRequest = validRaw(c.AgentProviderRequest)
	c.EvaluatorProviderRequest = validRaw(c.EvaluatorProviderRequest)
	c.ProviderMetadata = validRaw(c.ProviderMetadata)
	c.EvaluatorResults = encodableResults(c.EvaluatorResults)
	if t := c.TraceSummary; t != nil {
		ts := *t
		if ts.CostUSD != nil && finite(*ts.CostUSD) != *ts.CostUSD {
			ts.CostUSD = nil
		}
		if ts.DurationMS != nil && finite(*ts.DurationMS) != *ts.DurationMS {
			ts.DurationMS = nil
		}
		c.TraceSummary = &ts
	}
	return &c
}

func encodableResults(rs []EvaluatorResult) []EvaluatorResult {
	if rs == nil {
		return nil
	}
	out := make([]EvaluatorResult, len(rs))
	for i, e := range rs {
		e.Score, e.Weight = finite(e.Score), finite(e.Weight)
		e.EvaluatorProviderRequest = validRaw(e.EvaluatorProviderRequest)
		e.Details = validRaw(e.Details)
		e.EvaluatorResults = encodableResults(e.EvaluatorResults)
		out[i] = e
	}
	return out
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func validRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// Writer appends records to a JSONL file as cases finish; it is safe for concurrent use.
// Records are batched up to flushBytes or flushDelay, so a large fast run does not pay one
// write call per case while a killed run still keeps every case that finished more than
// flushDelay ago. Flush writes what is pending (call it before closing the file).
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	buf   bytes.Buffer  // pending lines
	enc   *json.Encoder // writes to buf
	timer *time.Timer
	err   error
}

const (
	flushBytes = 64 << 10
	flushDelay = 100 * time.Millisecond
)

// NewWriter returns a writer appending to w.
func NewWriter(w io.Writer) *Writer {
	wr := &Writer{w: w}
	wr.enc = newEncoder(&wr.buf)
	return wr
}

// Write appends one record.
func (w *Writer) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := encodeRecord(w.enc, r); err != nil {
		return err
	}
	if w.buf.Len() >= flushBytes {
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
	w.buf.Write(AppendRun(nil, r))
	w.buf.WriteByte('\n')
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
	if w.buf.Len() == 0 || w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
		w.err = fmt.Errorf("could not write results: %w", err)
	}
	if w.buf.Cap() > 4*flushBytes { // one huge record must not pin its buffer for the run
		w.buf = bytes.Buffer{}
	} else {
		w.buf.Reset()
	}
	return w.err
}
