package otlp

import (
	"encoding/json"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/results"
)

// message is a message the target was sent.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// inputOf is what rec's target was sent: its chat prompt, else its question (after any
// guidelines, as a system message); nil when the record holds no request.
func inputOf(rec *results.Record) []message {
	raw := rec.LMProviderRequest
	if raw == nil {
		raw = rec.AgentProviderRequest
	}
	var req struct {
		Question   string    `json:"question"`
		Guidelines string    `json:"guidelines"`
		Chat       []message `json:"chat_prompt"`
	}
	if raw == nil || json.Unmarshal(raw, &req) != nil {
		return nil
	}
	if len(req.Chat) > 0 {
		return req.Chat
	}
	var out []message
	if req.Guidelines != "" {
		out = append(out, message{"system", req.Guidelines})
	}
	if req.Question != "" {
		out = append(out, message{"user", req.Question})
	}
	return out
}

// part and chatMessage are the GenAI conventions' message shape (gen_ai.input.messages).
type part struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

type chatMessage struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

// messages sets gen_ai.input.messages and gen_ai.output.messages, when content is captured.
func (b *builder) messages(a pcommon.Map, in []message, answer string) {
	if !b.opt.CaptureContent {
		return
	}
	if len(in) > 0 {
		list := make([]chatMessage, 0, len(in))
		for _, m := range in {
			if m.Content != "" {
				list = append(list, chatMessage{m.Role, []part{{"text", textcap.Cap(m.Content)}}})
			}
		}
		if js, err := json.Marshal(list); err == nil && len(list) > 0 {
			a.PutStr(attrInputMsgs, string(js))
		}
	}
	if answer != "" {
		out := []chatMessage{{"assistant", []part{{"text", textcap.Cap(answer)}}}}
		if js, err := json.Marshal(out); err == nil {
			a.PutStr(attrOutputMsgs, string(js))
		}
	}
}
