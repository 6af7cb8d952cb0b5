package results

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/agentv/action/internal/jsonx"
)

// AppendRecord appends r as one line of JSON (no newline) in the field order of Record,
// as json.Marshal would without HTML escaping. It is hand-written because encoding/json
// re-validates and re-compacts every json.RawMessage (the recorded prompts), which was
// the largest cost of writing results.
func AppendRecord(b []byte, r *Record) []byte {
	b = append(b, `{"timestamp":`...)
	b = jsonx.AppendString(b, r.Timestamp)
	b = appendKeyString(b, "eval_id", r.EvalID)
	b = appendKeyString(b, "dataset", r.Dataset)
	if r.ConversationID != "" {
		b = appendKeyString(b, "conversation_id", r.ConversationID)
	}
	b = appendKeyFloat(b, "score", r.Score)
	b = appendKeyStrings(b, "hits", r.Hits)
	b = appendKeyStrings(b, "misses", r.Misses)
	b = appendKeyString(b, "candidate_answer", r.CandidateAnswer)
	b = appendKeyString(b, "target", r.Target)
	if r.Reasoning != "" {
		b = appendKeyString(b, "reasoning", r.Reasoning)
	}
	b = appendKeyRaw(b, "lm_provider_request", r.LMProviderRequest)
	b = appendKeyRaw(b, "agent_provider_request", r.AgentProviderRequest)
	b = appendKeyRaw(b, "evaluator_provider_request", r.EvaluatorProviderRequest)
	b = append(b, `,"evaluator_results":`...)
	b = appendEvaluators(b, r.EvaluatorResults)
	if r.Error != "" {
		b = appendKeyString(b, "error", r.Error)
	}
	if r.TraceSummary != nil {
		b = append(b, `,"trace_summary":`...)
		b = appendTrace(b, r.TraceSummary)
	}
	b = appendKeyRaw(b, "provider_metadata", r.ProviderMetadata)
	b = appendKeyString(b, "verdict", string(r.Verdict))
	b = appendKeyInt(b, "duration_ms", r.DurationMS)
	b = appendKeyInt(b, "attempts", int64(r.Attempts))
	b = appendKeyString(b, "file", r.File)
	b = appendKeyInt(b, "line", int64(r.Line))
	if len(r.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range r.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			first := true
			field := func(k, v string) {
				if v == "" {
					return
				}
				if !first {
					b = append(b, ',')
				}
				first = false
				b = jsonx.AppendString(b, k)
				b = append(b, ':')
				b = jsonx.AppendString(b, v)
			}
			num := func(k string, v int) {
				if v == 0 {
					return
				}
				if !first {
					b = append(b, ',')
				}
				first = false
				b = jsonx.AppendString(b, k)
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(v), 10)
			}
			field("file", w.File)
			num("line", w.Line)
			num("col", w.Col)
			field("kind", w.Kind)
			if !first {
				b = append(b, ',')
			}
			b = append(b, `"message":`...)
			b = jsonx.AppendString(b, w.Message)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendEvaluators(b []byte, rs []EvaluatorResult) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range rs {
		e := &rs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonx.AppendString(b, e.Name)
		b = appendKeyString(b, "type", e.Type)
		b = appendKeyFloat(b, "score", e.Score)
		b = appendKeyFloat(b, "weight", e.Weight)
		b = appendKeyString(b, "verdict", e.Verdict)
		b = appendKeyStrings(b, "hits", e.Hits)
		b = appendKeyStrings(b, "misses", e.Misses)
		if e.Reasoning != "" {
			b = appendKeyString(b, "reasoning", e.Reasoning)
		}
		b = appendKeyRaw(b, "evaluator_provider_request", e.EvaluatorProviderRequest)
		if len(e.EvaluatorResults) > 0 {
			b = append(b, `,"evaluator_results":`...)
			b = appendEvaluators(b, e.EvaluatorResults)
		}
		b = appendKeyRaw(b, "details", e.Details)
		if e.Error != "" {
			b = appendKeyString(b, "error", e.Error)
		}
		b = appendKeyInt(b, "duration_ms", e.DurationMS)
		if e.Attempts > 0 {
			b = appendKeyInt(b, "attempts", int64(e.Attempts))
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendTrace(b []byte, t *TraceSummary) []byte {
	b = append(b, `{"event_count":`...)
	b = strconv.AppendInt(b, int64(t.EventCount), 10)
	// Nil name lists and maps mean "no tool calls": written as [] and {} for consumers
	// that iterate them.
	if t.ToolNames == nil {
		b = append(b, `,"tool_names":[]`...)
	} else {
		b = appendKeyStrings(b, "tool_names", t.ToolNames)
	}
	b = append(b, `,"tool_calls_by_name":`...)
	if t.ToolCallsByName == nil {
		b = append(b, "{}"...)
	} else {
		names := make([]string, 0, len(t.ToolCallsByName))
		for k := range t.ToolCallsByName {
			names = append(names, k)
		}
		sort.Strings(names)
		b = append(b, '{')
		for i, k := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, k)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(t.ToolCallsByName[k]), 10)
		}
		b = append(b, '}')
	}
	b = appendKeyInt(b, "error_count", int64(t.ErrorCount))
	if u := t.TokenUsage; u != nil {
		b = append(b, `,"token_usage":{"input":`...)
		b = strconv.AppendInt(b, u.Input, 10)
		b = appendKeyInt(b, "output", u.Output)
		if u.Cached != nil {
			b = appendKeyInt(b, "cached", *u.Cached)
		}
		b = append(b, '}')
	}
	if t.CostUSD != nil {
		b = appendKeyFloat(b, "cost_usd", *t.CostUSD)
	}
	if t.DurationMS != nil {
		b = appendKeyFloat(b, "duration_ms", *t.DurationMS)
	}
	return append(b, '}')
}

func appendKey(b []byte, k string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

func appendKeyString(b []byte, k, v string) []byte {
	return jsonx.AppendString(appendKey(b, k), v)
}

func appendKeyInt(b []byte, k string, v int64) []byte {
	return strconv.AppendInt(appendKey(b, k), v, 10)
}

func appendKeyStrings(b []byte, k string, vs []string) []byte {
	b = appendKey(b, k)
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, v)
	}
	return append(b, ']')
}

// appendKeyFloat formats like encoding/json (and JavaScript): shortest repr, exponent only
// for very small or large magnitudes; NaN and infinities, which JSON cannot hold, as null.
func appendKeyFloat(b []byte, k string, f float64) []byte {
	b = appendKey(b, k)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	// Whole numbers (scores of 0 and 1, weights) print as integers; -0 keeps its sign.
	if abs < 1e15 && f == math.Trunc(f) && (f != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		n := len(b)
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// e-07 → e-7, as encoding/json writes it.
		if m := len(b); m-n >= 4 && b[m-4] == 'e' && b[m-3] == '-' && b[m-2] == '0' {
			b[m-2] = b[m-1]
			b = b[:m-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendKeyRaw appends a raw JSON value, omitted when empty. Values are produced by this
// program and already compact; one holding a line break (a judge's pretty-printed details)
// is compacted so the record stays on one line, and invalid JSON is written as a string.
func appendKeyRaw(b []byte, k string, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return b
	}
	b = appendKey(b, k)
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(b, raw...)
	}
	if out, err := jsonx.AppendCompact(b, raw); err == nil {
		return out
	}
	return jsonx.AppendString(b, string(raw))
}
