package evaluators_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/suite"
)

// Evaluate scores one answer with the case's evaluators; here a field_accuracy check that
// needs no judge, with a weight, next to a latency budget the trace does not cover.
func ExampleEvaluate() {
	c := &suite.Case{
		ID: "answer-42",
		Expected: []suite.Message{{Role: "assistant",
			Content: suite.Content{Kind: suite.ContentText, Text: `{"answer": "42"}`}}},
		Evaluators: []*suite.EvaluatorSpec{
			{Name: "fa", Type: "field_accuracy", Weight: 3, WeightSet: true,
				Settings: json.RawMessage(`{"fields": [{"path": "answer", "match": "exact"}]}`)},
			{Name: "fast", Type: "latency", Weight: 1, Settings: json.RawMessage(`{"threshold": 500}`)},
		},
	}
	out := evaluators.Evaluate(context.Background(), &evaluators.Input{Case: c, Candidate: `{"answer":"42"}`}, &evaluators.Options{})
	for _, r := range out.Results {
		fmt.Printf("%s: %.2f %s %v %v\n", r.Name, r.Score, r.Verdict, r.Hits, r.Misses)
	}
	fmt.Printf("case: %.2f errored=%v\n%s\n", out.Score, out.Errored, out.Reasoning)
	// Output:
	// fa: 1.00 pass [answer] []
	// fast: 0.00 fail [] [No duration data available in trace]
	// case: 0.75 errored=false
	// fa: 1/1 fields matched | fast: No duration data available in trace
}
