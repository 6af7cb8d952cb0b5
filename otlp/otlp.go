// Package otlp writes a run's results as OpenTelemetry traces in OTLP JSON: one trace a case,
// whose root span holds the case's score and verdict, with a child span for each target
// invocation (each trial and conversation turn) and each grader. The file is one
// ExportTraceServiceRequest, so an OpenTelemetry Collector (otlpjsonfile receiver), Langfuse
// or Phoenix (their OTLP/HTTP endpoints, JSON body) take it as it is, and AgentV 4.x's
// `inspect` reads it as it reads its own --otel-file output.
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

// Exporter writes the traces of the records it is given to w as one OTLP JSON object.
type Exporter struct {
	w    *bufio.Writer
	opt  Options
	ids  idSource
	n    int  // cases written
	open bool // the opening of the object is written
	err  error
}

// NewExporter returns an exporter writing to w; Close ends the JSON object.
func NewExporter(w io.Writer, opt Options) *Exporter {
	return &Exporter{w: bufio.NewWriterSize(w, 64<<10), opt: opt, ids: newIDSource()}
}

// StartRun sets the run the following records belong to: its start time, read from the
// run's start record. Trace ids are derived from it and each case, so two runs of a suite
// give distinct ids and one results file always gives the same file.
func (e *Exporter) StartRun(started string) { e.ids.run = started }

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
	if e.ids.run == "" {
		// A results file without a start record (an older agentv's): its first case
		// stands for the run.
		e.ids.run = rec.Timestamp
	}
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	resource(rs, e.opt)
	b := builder{opt: e.opt, spans: rs.ScopeSpans().At(0).Spans(), trace: e.ids.trace(rec)}
	b.record(rec)
	m := ptrace.JSONMarshaler{}
	js, err := m.MarshalTraces(td)
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

// Cases is how many cases were written.
func (e *Exporter) Cases() int { return e.n }

// WriteFile writes the traces of the case records in the results files srcs to path,
// replacing it once complete.
func WriteFile(path string, srcs []string, opt Options) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		e := NewExporter(w, opt)
		for _, src := range srcs {
			e.StartRun("")
			err := results.ScanFileLines(src, results.Visitor{
				Run: func(r *results.RunRecord, _ int) error {
					if r.Kind == results.KindRunStart {
						e.StartRun(r.Timestamp)
					}
					return nil
				},
				Case: func(rec *results.Record, _ int) error { return e.Add(rec) },
			})
			if err != nil {
				return err
			}
		}
		return e.Close()
	})
}

// timeOf reads a record's timestamp; ok is false when it has none that parses.
func timeOf(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
