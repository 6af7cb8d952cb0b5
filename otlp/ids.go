package otlp

import (
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agentv/action/results"
)

// Trace and span ids are hashes, not random: a trace id is the hash of the run (its start
// time) and the case (file, line, dataset, id, target), a span id the hash of its trace id and
// its place in the trace. So rerunning a suite gives new ids, while exporting one results
// file again (agentv report --otel-file) gives the same file, and a backend that keys traces
// by id (Langfuse) updates the traces it has instead of holding each case twice.

// idSource makes the trace ids of a run's cases.
type idSource struct {
	run string
	// seen counts the cases given each trace id: a second record of the same case (a
	// merge of two files of one run) gets an id of its own.
	seen map[pcommon.TraceID]int
}

func newIDSource() idSource { return idSource{seen: map[pcommon.TraceID]int{}} }

func (s *idSource) trace(rec *results.Record) pcommon.TraceID {
	h := sha256.New()
	for _, part := range []string{"agentv.trace", s.run, rec.File, strconv.Itoa(rec.Line), rec.Dataset, rec.EvalID, rec.Target} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	var id pcommon.TraceID
	copy(id[:], h.Sum(nil))
	if n := s.seen[id]; n > 0 {
		s.seen[id] = n + 1
		h.Write([]byte(strconv.Itoa(n)))
		copy(id[:], h.Sum(nil))
	} else {
		s.seen[id] = 1
	}
	return nonZeroTrace(id)
}

// spanID is the id of the span at path (such as "trial/2/grader/0") in trace t.
func spanID(t pcommon.TraceID, path string) pcommon.SpanID {
	sum := sha256.Sum256(append(t[:], path...))
	var id pcommon.SpanID
	copy(id[:], sum[:])
	if id.IsEmpty() { // all zero is "no span"; a hash gives it once in 2^64
		id[7] = 1
	}
	return id
}

func nonZeroTrace(id pcommon.TraceID) pcommon.TraceID {
	if id.IsEmpty() {
		id[15] = 1
	}
	return id
}
