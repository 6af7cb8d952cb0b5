package results

import (
	"encoding/json"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/suite"
)

// outputMessage is an output message as 4.x writes it.
type outputMessage struct {
	Role      string          `json:"role"`
	Name      string          `json:"name,omitempty"`
	Content   any             `json:"content,omitempty"`
	ToolCalls json.RawMessage `json:"tool_calls,omitempty"`
}

// maxOutput is the most bytes of output messages a record keeps: past it a record keeps none
// (its trace then shows the answer alone), so one agent's huge transcript cannot make a
// results line that readers refuse.
const maxOutput = 4 * textcap.Max

// OutputOf is msgs as a record's Output: nil when they are at most one assistant message
// with no tool calls (the candidate answer holds it); each text capped as an answer is.
func OutputOf(msgs []suite.Message) json.RawMessage {
	if len(msgs) == 0 || (len(msgs) == 1 && msgs[0].Role == suite.RoleAssistant && len(msgs[0].ToolCalls) == 0) {
		return nil
	}
	list := make([]outputMessage, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		list[i] = outputMessage{Role: m.Role, Name: m.Name}
		switch m.Content.Kind {
		case suite.ContentText:
			list[i].Content = textcap.Cap(m.Content.Text)
		case suite.ContentStructured:
			list[i].Content = validRaw(m.Content.Structured)
		case suite.ContentSegments:
			segs := make([]any, len(m.Content.Segments))
			for j, sg := range m.Content.Segments {
				if sg.Type != "text" && len(sg.Raw) > 0 && json.Valid(sg.Raw) {
					segs[j] = sg.Raw
				} else {
					segs[j] = map[string]string{"type": sg.Type, "value": sg.Value}
				}
			}
			list[i].Content = segs
		}
		if t := validRaw(m.ToolCalls); t != nil && string(t) != "null" {
			list[i].ToolCalls = t
		}
	}
	b, err := jsonx.Marshal(list)
	if err != nil || len(b) > maxOutput {
		return nil
	}
	return b
}
