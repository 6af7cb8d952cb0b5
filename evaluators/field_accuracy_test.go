package evaluators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentv/action/suite"
	"github.com/google/go-cmp/cmp"
)

func faSpec(settings string) *suite.EvaluatorSpec {
	return &suite.EvaluatorSpec{Name: "fa", Type: "field_accuracy", Weight: 1, Settings: json.RawMessage(settings)}
}

func TestFieldAccuracy(t *testing.T) {
	t.Parallel()
	expected := `{"answer": "42", "total": 100.0, "due": "2024-03-05", "items": [{"sku": "A1", "qty": 2}], "meta": {"tags": ["x", "y"]}, "opt": "o"}`
	tests := []struct {
		name       string
		settings   string
		candidate  string
		expected   []suite.Message
		wantScore  float64
		wantHits   int
		wantMisses []string
		wantReason string
		wantErr    string
	}{
		{name: "gen.py fa mode", settings: `{"fields": [{"path": "answer", "match": "exact"}]}`, candidate: `{"answer":"42"}`,
			expected: []suite.Message{text("assistant", `{"answer":"42"}`)}, wantScore: 1, wantHits: 1, wantMisses: []string{}, wantReason: "1/1 fields matched"},
		{name: "exact mismatch", settings: `{"fields": [{"path": "$.answer"}]}`, candidate: `{"answer": 42}`,
			wantScore: 0, wantMisses: []string{"$.answer (type mismatch: got number, expected string)"}, wantReason: "0/1 fields matched"},
		{name: "nested paths and deep equality", settings: `{"fields": [{"path": "items[0].sku"}, {"path": "meta.tags"}, {"path": "items[0]"}]}`,
			candidate: "Sure:\n```json\n{\"items\": [{\"qty\": 2.0, \"sku\": \"A1\"}], \"meta\": {\"tags\": [\"x\", \"y\"]}}\n```",
			wantScore: 1, wantHits: 3, wantMisses: []string{}},
		{name: "numeric tolerance absolute and relative", settings: `{"fields": [{"path": "total", "match": "numeric_tolerance", "tolerance": 0.5},
			{"path": "total", "match": "numeric_tolerance", "tolerance": 0.01, "relative": true, "weight": 3}]}`,
			candidate: `{"total": "100.4"}`, wantScore: 1, wantHits: 2, wantMisses: []string{}},
		{name: "numeric tolerance miss weighted", settings: `{"fields": [{"path": "total", "match": "numeric_tolerance", "tolerance": 0.5, "weight": 3}, {"path": "answer"}]}`,
			candidate: `{"total": 101, "answer": "42"}`, wantScore: 0.25, wantHits: 1, wantMisses: []string{"total (outside tolerance: diff=1.00, tolerance=0.5)"}},
		{name: "dates in several formats", settings: `{"fields": [{"path": "due", "match": "date"}]}`, candidate: `{"due": "05-Mar-2024"}`,
			wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "date us slash", settings: `{"fields": [{"path": "due", "match": "date"}]}`, candidate: `{"due": "03/05/2024"}`,
			wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "date eu by formats", settings: `{"fields": [{"path": "due", "match": "date", "formats": ["DD/MM/YYYY"]}]}`, candidate: `{"due": "05/03/2024"}`,
			wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "date mismatch", settings: `{"fields": [{"path": "due", "match": "date"}]}`, candidate: `{"due": "March 6, 2024"}`,
			wantScore: 0, wantMisses: []string{"due (date mismatch: got 2024-03-06, expected 2024-03-05)"}},
		{name: "required missing vs optional missing", settings: `{"fields": [{"path": "answer"}, {"path": "opt", "required": false}, {"path": "total", "match": "numeric_tolerance"}]}`,
			candidate: `{"total": 100}`, wantScore: 0.5, wantHits: 2, wantMisses: []string{"answer (required, missing)"}, wantReason: "2/3 fields matched"},
		{name: "expected value missing counts as hit", settings: `{"fields": [{"path": "nothere"}]}`, candidate: `{"a": 1}`,
			wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "all or nothing", settings: `{"aggregation": "all_or_nothing", "fields": [{"path": "answer"}, {"path": "opt"}]}`,
			candidate: `{"answer": "42", "opt": "x"}`, wantScore: 0, wantHits: 1, wantMisses: []string{"opt (value mismatch)"}},
		{name: "candidate not json", settings: `{"fields": [{"path": "answer"}]}`, candidate: `forty-two`,
			wantScore: 0, wantMisses: []string{"Failed to parse candidate answer as JSON"}},
		// The cases below follow AgentV (2.5 and 4.42.4 alike), checked side by side with 4.42.4.
		{name: "no expected data", settings: `{"fields": [{"path": "answer"}]}`, candidate: `{"answer": "42"}`,
			expected: []suite.Message{text("assistant", "not json")}, wantScore: 0, wantMisses: []string{"No expected data found in expected_messages"}},
		{name: "relative tolerance of an expected 0 is absolute", settings: `{"fields": [{"path": "z", "match": "numeric_tolerance", "tolerance": 0.02, "relative": true}]}`,
			candidate: `{"z": 0.01}`, expected: []suite.Message{text("assistant", `{"z": 0}`)}, wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "numbers read as parseFloat does", settings: `{"fields": [{"path": "w", "match": "numeric_tolerance"}]}`,
			candidate: `{"w": "42 kg"}`, expected: []suite.Message{text("assistant", `{"w": 42}`)}, wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "only optional fields missing: weighted 0, all or nothing 1", settings: `{"fields": [{"path": "opt", "required": false}]}`,
			candidate: `{"a": 1}`, wantScore: 0, wantHits: 1, wantMisses: []string{}, wantReason: "1/1 fields matched"},
		{name: "only optional fields missing, all or nothing", settings: `{"aggregation": "all_or_nothing", "fields": [{"path": "opt", "required": false}]}`,
			candidate: `{"a": 1}`, wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "numeric key on a list and index on an object", settings: `{"fields": [{"path": "items.0.sku"}, {"path": "m[0]"}]}`,
			candidate: `{"items": [{"sku": "A1"}], "m": {"0": "z"}}`, expected: []suite.Message{text("assistant", `{"items": [{"sku": "A1"}], "m": {"0": "z"}}`)},
			wantScore: 1, wantHits: 2, wantMisses: []string{}},
		{name: "two objects do not parse", settings: `{"fields": [{"path": "answer"}]}`, candidate: `{"answer": "42"} or {"answer": "43"}`,
			wantScore: 0, wantMisses: []string{"Failed to parse candidate answer as JSON"}},
		{name: "fenced, passed read as a boolean", settings: `{"fields": [{"path": "passed"}]}`, candidate: "```json\n{\"passed\": \"yes\"}\n```",
			expected: []suite.Message{text("assistant", `{"passed": false}`)}, wantScore: 1, wantHits: 1, wantMisses: []string{}},
		{name: "no fields", settings: `{}`, wantErr: "needs `fields"},
		{name: "bad match", settings: `{"fields": [{"path": "a", "match": "fuzzy"}]}`, wantErr: `unknown match "fuzzy"`},
		{name: "bad path", settings: `{"fields": [{"path": "a[x]"}]}`, wantErr: "bad index"},
		{name: "bad aggregation", settings: `{"fields": [{"path": "a"}], "aggregation": "max"}`, wantErr: `unknown aggregation "max"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := riskCase(t.TempDir(), faSpec(tt.settings))
			c.Expected = tt.expected
			if c.Expected == nil {
				c.Expected = []suite.Message{text("user", "ignored"), structured("assistant", expected), {Role: "assistant"}}
			}
			out := Evaluate(t.Context(), riskInput(c, tt.candidate), &Options{})
			res := out.Results[0]
			if tt.wantErr != "" {
				if !strings.Contains(res.Error, tt.wantErr) {
					t.Errorf("error = %q, want %q", res.Error, tt.wantErr)
				}
				return
			}
			if res.Error != "" || res.Score != tt.wantScore || len(res.Hits) != tt.wantHits {
				t.Errorf("score %v hits %q error %q; want %v and %d hits", res.Score, res.Hits, res.Error, tt.wantScore, tt.wantHits)
			}
			if diff := cmp.Diff(tt.wantMisses, res.Misses); diff != "" {
				t.Errorf("misses (-want +got):\n%s", diff)
			}
			if tt.wantReason != "" && res.Reasoning != tt.wantReason {
				t.Errorf("reasoning = %q, want %q", res.Reasoning, tt.wantReason)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		formats []string
		want    string // "" means not a date
	}{
		{"2024-03-05", nil, "2024-03-05"},
		{"2024-03-05T23:59:00-08:00", nil, "2024-03-05"},
		{"2024/3/5", nil, "2024-03-05"},
		{"05-Mar-2024", nil, "2024-03-05"},
		{"5 March 2024", nil, "2024-03-05"},
		{"Mar 5, 2024", nil, "2024-03-05"},
		{"September 30th, 2024", nil, "2024-09-30"},
		{"03/05/2024", nil, "2024-03-05"},
		{"03/05/2024", []string{"DD/MM/YYYY"}, "2024-05-03"},
		{"25/12/2024", nil, "2024-12-25"},
		{"2024-02-30", nil, ""},
		{"13/13/2024", nil, ""},
		{"05-Foo-2024", nil, ""},
		{"tomorrow", nil, ""},
	}
	for _, tt := range tests {
		got, ok := parseDate(tt.in, tt.formats)
		if (tt.want == "") == ok || (ok && got.String() != tt.want) {
			t.Errorf("parseDate(%q, %v) = %v, %v; want %q", tt.in, tt.formats, got, ok, tt.want)
		}
	}
}
