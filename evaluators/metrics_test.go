package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

func TestMetricEvaluators(t *testing.T) {
	t.Parallel()
	dur, price := 1200.0, 0.01234
	cached := int64(50)
	full := &results.TraceSummary{DurationMS: &dur, CostUSD: &price,
		TokenUsage: &results.TokenUsage{Input: 1000, Output: 200, Cached: &cached}}
	tests := []struct {
		name      string
		typ       string
		settings  string
		trace     *results.TraceSummary
		wantScore float64
		wantText  string // substring of hits+misses
		wantErr   string
	}{
		{"latency within", "latency", `{"threshold": 1200}`, full, 1, "Duration 1200ms <= 1200ms threshold", ""},
		{"latency over", "latency", `{"threshold": 1000}`, full, 0, "Duration 1200ms > 1000ms threshold", ""},
		{"latency no data", "latency", `{"threshold": 1000}`, nil, 0, "No duration data available in trace", ""},
		{"latency no threshold", "latency", `{}`, full, 0, "", "needs `threshold`"},
		{"latency negative", "latency", `{"threshold": -1}`, full, 0, "", "must be a number >= 0"},
		{"cost within", "cost", `{"budget": 0.02}`, full, 1, "Cost $0.0123 <= $0.0200 budget", ""},
		{"cost over", "cost", `{"budget": 0.01}`, full, 0, "Cost $0.0123 > $0.0100 budget", ""},
		{"cost no data", "cost", `{"budget": 1}`, &results.TraceSummary{}, 0, "No cost data available in trace", ""},
		{"tokens all hold", "token_usage", `{"max_total": 1250, "maxInput": 1000}`, full, 1, "Total tokens 1250 <= 1250", ""},
		{"tokens one fails", "token_usage", `{"max_total": 5000, "max_output": 100}`, full, 0, "Output tokens 200 > 100", ""},
		{"tokens no usage", "token_usage", `{"max_total": 1}`, nil, 0, "No token usage data available in trace", ""},
		{"tokens no limits", "token_usage", `{"name": "t"}`, full, 0, "", "at least one of"},
		{"settings not an object", "cost", `[1]`, full, 0, "", "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := &suite.EvaluatorSpec{Name: tt.name, Type: tt.typ, Weight: 1, Settings: json.RawMessage(tt.settings)}
			in := riskInput(riskCase(t.TempDir(), spec), "x")
			in.Trace = tt.trace
			res := Evaluate(t.Context(), in, &Options{}).Results[0]
			if tt.wantErr != "" {
				if !strings.Contains(res.Error, tt.wantErr) {
					t.Errorf("error = %q, want %q", res.Error, tt.wantErr)
				}
				return
			}
			text := strings.Join(append(append([]string{}, res.Hits...), res.Misses...), "|")
			if res.Error != "" || res.Score != tt.wantScore || !strings.Contains(text, tt.wantText) {
				t.Errorf("score %v, hits+misses %q, error %q; want %v and %q", res.Score, text, res.Error, tt.wantScore, tt.wantText)
			}
		})
	}
}
