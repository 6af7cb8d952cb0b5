package results

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stdMarshal is what encoding/json writes for a record (without HTML escaping).
func stdMarshal(t *testing.T, r *Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

func TestAppendRecordMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	records := map[string]*Record{
		"empty": {},
		"full": {
			Timestamp: "2026-01-02T03:04:05.000Z", EvalID: "case-1", Dataset: "ds", ConversationID: "conv",
			Score: 0.8333333333333334, Hits: []string{"a", "b \"quoted\""}, Misses: []string{},
			CandidateAnswer: "line1\nline2 <b>&</b> \u2028 \x00 é", Target: "t", Reasoning: "why",
			LMProviderRequest:        json.RawMessage(`{"question":"q","guidelines":""}`),
			EvaluatorProviderRequest: json.RawMessage(`{"user_prompt":"p","system_prompt":"s","target":"j"}`),
			EvaluatorResults: []EvaluatorResult{
				{Name: "j", Type: "llm_judge", Score: 1, Weight: 1, Verdict: "pass", Hits: []string{"x"}, Misses: []string{},
					EvaluatorProviderRequest: json.RawMessage(`{"a":1}`), Details: json.RawMessage(`{"riskLevel":"High"}`), DurationMS: 12},
				{Name: "c", Type: "composite", Score: 1e-7, Weight: 0, Verdict: "fail", Error: "boom",
					EvaluatorResults: []EvaluatorResult{{Name: "m", Type: "code_judge", Score: 2.5e21}}},
			},
			Error: "err",
			TraceSummary: &TraceSummary{EventCount: 3, ToolNames: []string{"Read", "Write"},
				ToolCallsByName: map[string]int{"Write": 1, "Read": 2}, TokenUsage: &TokenUsage{Input: 10, Output: 20, Cached: i64(5)},
				CostUSD: f64(0.000123), DurationMS: f64(1234.5)},
			ProviderMetadata: json.RawMessage(`{"dry_run":true}`),
			Verdict:          VerdictError, DurationMS: 99, Attempts: 2, File: "evals/a.yaml", Line: 7,
			Warnings: []Warning{{File: "t.md", Line: 2, Col: 3, Kind: "template", Message: "m"}, {Message: "only"}},
		},
		"empty trace": {TraceSummary: &TraceSummary{ToolNames: []string{}, ToolCallsByName: map[string]int{}}, EvaluatorResults: []EvaluatorResult{}},
	}
	for name, r := range records {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, want := AppendRecord(nil, r), stdMarshal(t, r)
			if !bytes.Equal(got, want) {
				t.Errorf("AppendRecord differs from encoding/json:\n%s", cmp.Diff(string(want), string(got)))
			}
		})
	}
}

func TestAppendRecordRawWithLineBreaks(t *testing.T) {
	t.Parallel()
	r := &Record{EvaluatorResults: []EvaluatorResult{{Name: "j", Details: json.RawMessage("{\n  \"a\": 1\n}")}}}
	got := AppendRecord(nil, r)
	if bytes.ContainsAny(got, "\n\r") {
		t.Fatalf("record spans lines: %s", got)
	}
	var back Record
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.EvaluatorResults[0].Details) != `{"a":1}` {
		t.Errorf("details = %s", back.EvaluatorResults[0].Details)
	}
}

func TestAppendRecordNonFinite(t *testing.T) {
	t.Parallel()
	got := AppendRecord(nil, &Record{Score: math.NaN(), TraceSummary: &TraceSummary{CostUSD: f64(math.Inf(1))}})
	if !json.Valid(got) {
		t.Fatalf("invalid JSON: %s", got)
	}
}

func FuzzAppendRecord(f *testing.F) {
	f.Add("case", "answer\n<x>", "reason", 0.5, `{"k":"v"}`)
	f.Add("", "\xff\xfe", "\u2029", 1e-9, `[1,2]`)
	f.Fuzz(func(t *testing.T, id, answer, reason string, score float64, raw string) {
		r := &Record{EvalID: id, CandidateAnswer: answer, Reasoning: reason, Score: score, Hits: []string{answer},
			EvaluatorResults: []EvaluatorResult{{Name: id, Reasoning: reason, Details: json.RawMessage(raw)}}}
		if !json.Valid([]byte(raw)) {
			r.EvaluatorResults[0].Details = nil
		}
		got := AppendRecord(nil, r)
		if !json.Valid(got) || bytes.ContainsAny(got, "\n\r") {
			t.Fatalf("not one valid JSON line: %q", got)
		}
		var back Record
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if back.EvalID != toValidUTF8(id) || back.CandidateAnswer != toValidUTF8(answer) {
			t.Errorf("round trip changed text: %q → %q", answer, back.CandidateAnswer)
		}
	})
}

// toValidUTF8 is what a JSON round trip does to invalid UTF-8.
func toValidUTF8(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// FuzzAppendKeyFloat: numbers are written as encoding/json writes them.
func FuzzAppendKeyFloat(f *testing.F) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-7, 1e20, 1e21, 123456789012345, 1e15, -3e14, 2.5e-300} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		want, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendKeyFloat(nil, "k", x); string(got) != `,"k":`+string(want) {
			t.Fatalf("appendKeyFloat(%v) = %s, encoding/json %s", x, got, want)
		}
	})
}
