package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agentv/action/action"
	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/report"
	"github.com/agentv/action/results"
)

// The annotations of a run with thousands of failures read the same from the records the
// collector keeps (plus the count of the others) as from every record.
func TestAnnotationsFromKeptRecords(t *testing.T) {
	t.Parallel()
	var recs []*results.Record
	// More failures than the collector keeps records for Markdown details (the first ones in
	// report order). The five errored cases and the lowest scores are all in the last file,
	// past those, so only the annotation lists keep their records: the ten error annotations
	// are the five errored cases and the five lowest-scoring failures.
	const n = 12_000
	for i := range n {
		r := &results.Record{EvalID: fmt.Sprintf("c%05d", i), File: fmt.Sprintf("evals/%d.yaml", i%3), Line: i + 1,
			Score: 0.7, Verdict: results.VerdictFail, Misses: []string{"miss"},
			Reasoning: "because", EvaluatorResults: []results.EvaluatorResult{{Name: "rubric", Score: 0.1}}}
		switch {
		case i%3 == 2 && i >= n-13:
			r.Verdict, r.Error, r.Score = results.VerdictError, fmt.Sprintf("timed out (%d)", i), 0
		case i%7 == 1:
			r.Verdict, r.Score, r.Misses = results.VerdictPass, 0.9, nil
		case i%3 == 2:
			r.Score = 0.7 * float64(n-i) / n
		}
		recs = append(recs, r)
	}
	rand.New(rand.NewPCG(3, 3)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	opts := action.AnnotationOptions{Workspace: "/ws", WorkDir: "/ws", Details: report.DetailsFailures}

	var want bytes.Buffer
	all := make([]results.Record, len(recs))
	for i, r := range recs {
		all[i] = *r
	}
	action.NewCommands(&want, &redact.Redactor{}).Annotate(action.BuildAnnotations(nil, all, nil, false, opts), 0)

	col := report.NewCollector(report.DetailsFailures, 0.8, action.MaxAnnotationsPerLevel)
	defer col.Close()
	for _, r := range recs {
		col.Add(r)
	}
	var kept []results.Record
	omitted := 0
	for _, c := range col.Cases() {
		switch {
		case c.Record != nil:
			kept = append(kept, *c.Record)
		case c.Verdict != results.VerdictPass:
			omitted++
		}
	}
	if omitted == 0 {
		t.Fatal("every record was kept: the test would not exercise the bound")
	}
	var got bytes.Buffer
	action.NewCommands(&got, &redact.Redactor{}).Annotate(action.BuildAnnotations(nil, kept, nil, false, opts), omitted)
	if got.String() != want.String() {
		t.Errorf("annotations differ:\n--- from every record:\n%s\n--- from kept records:\n%s", want.String(), got.String())
	}
}
