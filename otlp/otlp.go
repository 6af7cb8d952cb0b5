// Package otlp writes a run's results as OpenTelemetry traces in OTLP JSON: one trace a case,
// whose root span holds the case's score and verdict, with a child span for each target
// invocation (each trial and conversation turn) and each grader. The file is one
// ExportTraceServiceRequest, so an OpenTelemetry Collector (otlpjsonfile receiver), Langfuse
// or Phoenix (their OTLP/HTTP endpoints, JSON body) take it as it is, and AgentV 4.x's
// `inspect` reads it as it reads its own --otel-file output. Sender posts the same traces to
// an OTLP/HTTP endpoint in protobuf (--export-otel).
//
// Records are read one at a time and each case's spans are written before the next is read,
// so a large run costs a large file, not memory.
package otlp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentv/action/internal/atomicfile"
	"github.com/agentv/action/results"
)

// Options say what the traces carry.
type Options struct {
	// CaptureContent adds message content: inputs, answers, turns, grader reasoning and
	// hits and misses. Off, a trace holds numbers, names, verdicts and errors only.
	CaptureContent bool
	// Version is agentv's version, the resource's service.version ("" leaves it out).
	Version string
}

// tracer makes the traces of a run's records.
type tracer struct {
	opt Options
	ids idSource
}

func newTracer(opt Options) *tracer { return &tracer{opt: opt, ids: newIDSource()} }

// StartRun sets the run the following records belong to: its start time, read from the
// run's start record. Trace ids are derived from it and each case, so two runs of a suite
// give distinct ids and one results file always gives the same traces.
func (t *tracer) StartRun(started string) { t.ids.run = started }

// traces is the trace of one case, as one ResourceSpans.
func (t *tracer) traces(rec *results.Record) ptrace.Traces {
	if t.ids.run == "" {
		// A results file without a start record (an older agentv's): its first case
		// stands for the run.
		t.ids.run = rec.Timestamp
	}
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	resource(rs, t.opt)
	b := builder{opt: t.opt, spans: rs.ScopeSpans().At(0).Spans(), trace: t.ids.trace(rec), runID: t.ids.run}
	b.record(rec)
	return td
}

// scan hands each case record of the results files srcs to fn, telling t each file's run.
func (t *tracer) scan(srcs []string, fn func(*results.Record) error) error {
	for _, src := range srcs {
		t.StartRun("")
		err := results.ScanFileLines(src, results.Visitor{
			Run: func(r *results.RunRecord, _ int) error {
				if r.Kind == results.KindRunStart {
					t.StartRun(r.Timestamp)
				}
				return nil
			},
			Case: func(rec *results.Record, _ int) error { return fn(rec) },
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Exporter writes the traces of the records it is given to w as one OTLP JSON object.
type Exporter struct {
	*tracer
	w    *bufio.Writer
	n    int  // cases written
	open bool // the opening of the object is written
	err  error
}

// NewExporter returns an exporter writing to w; Close ends the JSON object.
func NewExporter(w io.Writer, opt Options) *Exporter {
	return &Exporter{tracer: newTracer(opt), w: bufio.NewWriterSize(w, 64<<10)}
}

// head and tail wrap each case's marshalled ResourceSpans: the pdata marshaler writes a
// Traces value as exactly {"resourceSpans":[…]}.
const (
	head = `{"resourceSpans":[`
	tail = `]}`
)

// Add writes the trace of one case.
func (e *Exporter) Add(rec *results.Record) error {
	if e.err != nil {
		return e.err
	}
	m := ptrace.JSONMarshaler{}
	js, err := m.MarshalTraces(e.traces(rec))
	if err != nil {
		return e.fail(fmt.Errorf("case %s: %w", rec.EvalID, err))
	}
	inner, ok := bytes.CutPrefix(js, []byte(head))
	if ok {
		inner, ok = bytes.CutSuffix(inner, []byte(tail))
	}
	if !ok {
		return e.fail(fmt.Errorf("case %s: unexpected OTLP JSON shape", rec.EvalID))
	}
	if !e.open {
		e.open = true
		e.w.WriteString(head)
	}
	if e.n > 0 {
		e.w.WriteByte(',')
	}
	e.n++
	_, err = e.w.Write(inner)
	return e.fail(err)
}

func (e *Exporter) fail(err error) error {
	if e.err == nil {
		e.err = err
	}
	return err
}

// Close ends the object (an empty list when no case was added) and flushes it.
func (e *Exporter) Close() error {
	if e.err != nil {
		return e.err
	}
	if !e.open {
		e.w.WriteString(head)
	}
	e.w.WriteString(tail + "\n")
	return e.w.Flush()
}

// WriteFile writes the traces of the case records in the results files srcs to path,
// replacing it once complete.
func WriteFile(path string, srcs []string, opt Options) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		e := NewExporter(w, opt)
		if err := e.scan(srcs, e.Add); err != nil {
			return err
		}
		return e.Close()
	})
}

// timeOf reads a record's timestamp; ok is false when it has none that parses.
func timeOf(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
