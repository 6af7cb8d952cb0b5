package otlp

import (
	"cmp"
	"encoding/json"
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/results"
)

// toolCall is a tool call of an output message, as agents report them (AgentV 4.x's shape;
// some name the tool "name").
type toolCall struct {
	Tool       string          `json:"tool"`
	Name       string          `json:"name"`
	ID         string          `json:"id"`
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output"`
	Status     string          `json:"status"`
	StartTime  string          `json:"start_time"`
	EndTime    string          `json:"end_time"`
	DurationMS *float64        `json:"duration_ms"`
}

// tools makes a span for each tool call in rec's output messages, under the invocation
// span parent that lasted w: at the times the agent reported when it did (kept within w),
// else after the call before by their durations.
func (b *builder) tools(rec *results.Record, parent pcommon.SpanID, path string, w window) {
	if len(rec.Output) == 0 {
		return
	}
	var msgs []struct {
		ToolCalls []toolCall `json:"tool_calls"`
	}
	if json.Unmarshal(rec.Output, &msgs) != nil {
		return
	}
	n := 0
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			name := cmp.Or(c.Tool, c.Name)
			if name == "" {
				continue
			}
			var tw window
			start, ok1 := timeOf(c.StartTime)
			end, ok2 := timeOf(c.EndTime)
			if ok1 && ok2 && !end.Before(start) {
				tw = window{clamp(start, w), clamp(end, w)}
				if tw.end.After(w.at) {
					w.at = tw.end // the next call without times follows this one
				}
			} else {
				ms := int64(0)
				if c.DurationMS != nil {
					ms = int64(*c.DurationMS)
				}
				tw = w.take(ms)
			}
			s := b.span("execute_tool "+name, path+"tool/"+strconv.Itoa(n), parent, ptrace.SpanKindInternal, tw)
			n++
			a := s.Attributes()
			a.PutStr(attrOperation, "execute_tool")
			a.PutStr(attrKind, "TOOL")
			a.PutStr(attrToolName, name)
			if c.ID != "" {
				a.PutStr(attrToolCallID, c.ID)
			}
			if c.Status == "error" {
				setError(s, "the tool call failed")
			}
			b.content(a, attrToolArgs, rawText(c.Input))
			b.content(a, attrToolResult, rawText(c.Output))
		}
	}
}

// rawText is a JSON value as text: a string's own text, else its JSON.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return textcap.Cap(string(raw))
}

func clamp(t time.Time, w window) time.Time {
	switch {
	case t.Before(w.at):
		return w.at
	case t.After(w.end):
		return w.end
	}
	return t
}
