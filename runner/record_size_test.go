package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/targets"
)

// A huge question and answer cost a bounded record: each text is stored once (the default
// judge's prompt at the top of the record only) and capped with a note saying so.
func TestRunRecordSizeIsBounded(t *testing.T) {
	t.Parallel()
	const secret = "sk-test-SECRET-98765"
	huge := strings.Repeat("q", 8*textcap.Max)
	// The answer's secret straddles the cap: only redacting before the cut masks it.
	answer := strings.Repeat("a", textcap.Max-len(secret)/2) + secret + strings.Repeat("a", 3*textcap.Max)
	tests := []struct {
		name string
		chat bool
	}{
		{"single turn", false},
		{"chat prompt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			red := &redact.Redactor{}
			red.Add(secret)
			s := newSuite(1)
			c := s.Cases[0]
			c.Question = huge
			c.Input[0].Content.Text = huge
			if tt.chat {
				c.Input = append(c.Input, c.Input[0], c.Input[0])
				c.Input[1].Role = "assistant"
			}
			p := &fakeProvider{target: &targets.Target{Name: "t", Kind: targets.KindMock},
				answer: func(context.Context, *providers.Request) (*providers.Response, error) {
					return &providers.Response{Text: answer}, nil
				}}
			opts := testOptions(1)
			opts.Redactor = red
			var col collector
			New(opts, col.CaseFinished).Run(t.Context(), feed(t.Context(), jobsFor(s, p)))
			r := col.recs[0]
			line := mustMarshal(t, r)
			// Question (or chat turns), the judge prompt and the answer, 1 MiB each at most.
			limit := 4*textcap.Max + 64<<10
			if tt.chat {
				limit += 2 * textcap.Max
			}
			if len(line) > limit {
				t.Errorf("record is %d bytes for a %d-byte question, want at most %d", len(line), len(huge), limit)
			}
			if n := strings.Count(string(line), "[truncated "); n < 3 {
				t.Errorf("%d truncation notes in the record, want one per capped text (>= 3)", n)
			}
			if strings.Contains(string(line), secret[:len(secret)/2]) {
				t.Error("the cut kept part of the secret")
			}
			if r.Verdict != results.VerdictPass {
				t.Errorf("verdict %s (%s)", r.Verdict, r.Error)
			}
			if len(r.EvaluatorResults) != 1 || len(r.EvaluatorResults[0].EvaluatorProviderRequest) > 0 || len(r.EvaluatorProviderRequest) == 0 {
				t.Error("the default judge's request should be at the top of the record only")
			}
		})
	}
}

func mustMarshal(t *testing.T, r *results.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	w := results.NewWriter(&b)
	if err := w.Write(r); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
