package providers

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"
)

// codexStream is what `codex exec --json` printed: the final assistant message, token usage,
// the commands the agent ran, and what went wrong when it failed.
type codexStream struct {
	Final    string // text of the last assistant message, "" if none
	Usage    *Usage
	Commands []codexCommand
	// Failure is the turn.failed message (or, without one, the last error event).
	Failure string
	Events  int // JSON events read
	Skipped int // non-JSON lines ignored (banners, warnings)

	turnFailed string
}

// codexCommand is one command_execution item, kept as a tool call of the answer.
type codexCommand struct {
	Command  string `json:"command"`
	Output   string `json:"output,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Status   string `json:"status,omitempty"`
}

// codexEvent covers the event shapes of the Codex CLI's JSON output:
//
//	{"type":"item.completed","item":{"type":"agent_message","text":"..."}}      (0.4x and later)
//	{"type":"item.completed","item":{"item_type":"assistant_message","text":""}} (0.2x–0.3x)
//	{"type":"turn.completed","usage":{"input_tokens":..,"cached_input_tokens":..,"output_tokens":..}}
//	{"type":"turn.failed","error":{"message":"..."}}, {"type":"error","message":"..."}
//	{"msg":{"type":"agent_message","message":"..."}}, {"msg":{"type":"task_complete","last_agent_message":"..."}} (legacy)
type codexEvent struct {
	Type    string          `json:"type"`
	Item    *codexItem      `json:"item"`
	Usage   *codexUsage     `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Msg     *struct {
		Type             string `json:"type"`
		Message          string `json:"message"`
		LastAgentMessage string `json:"last_agent_message"`
	} `json:"msg"`
}

type codexItem struct {
	Type             string `json:"type"`
	ItemType         string `json:"item_type"`
	Text             string `json:"text"`
	Message          string `json:"message"`
	Command          string `json:"command"`
	AggregatedOutput string `json:"aggregated_output"`
	ExitCode         *int   `json:"exit_code"`
	Status           string `json:"status"`
}

type codexUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
}

// codexParseStream reads JSONL (one event a line) or a single JSON value (an event or an array of
// events). Lines that are not JSON objects are skipped: the stream is the source of truth and a
// stray banner must not hide an answer.
func codexParseStream(out []byte) *codexStream {
	s := &codexStream{}
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var events []json.RawMessage
		if json.Unmarshal(trimmed, &events) == nil {
			for _, e := range events {
				s.add(e)
			}
			return s
		}
	}
	skipped, err := jsonLines(out, 16<<20, s.add)
	s.Skipped += skipped
	if err != nil && s.Events == 0 {
		// A single pretty-printed object spans lines; try the whole output once.
		s.add(trimmed)
	}
	return s
}

// add applies one JSON event; false when raw is not a JSON object.
func (s *codexStream) add(raw []byte) bool {
	var e codexEvent
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	s.Events++
	switch {
	case e.Item != nil && (e.Type == "item.completed" || e.Type == ""):
		switch cmp.Or(e.Item.Type, e.Item.ItemType) {
		case "agent_message", "assistant_message":
			if t := codexFirst(e.Item.Text, e.Item.Message); t != "" {
				s.Final = t
			}
		case "command_execution":
			s.Commands = append(s.Commands, codexCommand{Command: e.Item.Command, Output: e.Item.AggregatedOutput,
				ExitCode: e.Item.ExitCode, Status: e.Item.Status})
		}
	case e.Type == "turn.completed" && e.Usage != nil:
		if s.Usage == nil {
			s.Usage = &Usage{}
		}
		s.Usage.Input += e.Usage.InputTokens
		s.Usage.Output += e.Usage.OutputTokens
		if c := e.Usage.CachedInputTokens; c > 0 {
			if s.Usage.Cached != nil {
				c += *s.Usage.Cached
			}
			s.Usage.Cached = &c
		}
	case e.Type == "turn.failed":
		s.turnFailed = codexFirst(codexErrorText(e.Error), e.Message, "the turn failed")
		s.Failure = s.turnFailed
	case e.Type == "error":
		// Transient errors ("Reconnecting... 1/5") come before the turn's verdict; a turn.failed wins.
		if m := codexFirst(e.Message, codexErrorText(e.Error)); m != "" && s.turnFailed == "" {
			s.Failure = m
		}
	case e.Msg != nil:
		switch e.Msg.Type {
		case "agent_message":
			if e.Msg.Message != "" {
				s.Final = e.Msg.Message
			}
		case "task_complete":
			if e.Msg.LastAgentMessage != "" {
				s.Final = e.Msg.LastAgentMessage
			}
		case "error":
			s.Failure = codexFirst(e.Msg.Message, s.Failure)
		}
	}
	return true
}

// codexErrorText reads an error that is a string or an object with a message.
func codexErrorText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &o)
	return o.Message
}

func codexFirst(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
