package providers

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
)

// claudeStream is what `claude -p --output-format stream-json --verbose` printed: the answer,
// the assistant turns with their tool calls, token usage, cost and duration, and what went
// wrong when the run failed.
type claudeStream struct {
	Final      string          // the `result` of the result event, else the last assistant turn's text
	Messages   []claudeMessage // assistant turns, in order
	Usage      *Usage
	CostUSD    *float64 // as the CLI computed it
	DurationMS *float64 // as the CLI measured it
	NumTurns   int
	Model      string // from the init event
	// Failure is the error a failed run reported: the result's error text, else the last API
	// error the CLI retried.
	Failure  string
	Result   bool // a result event was read
	IsError  bool // the result event says the run failed
	Events   int  // JSON events read
	Skipped  int  // non-JSON lines ignored
	calls    map[string]*claudeToolCall
	apiError string
}

// claudeMessage is one assistant turn: its text and the tools it called.
type claudeMessage struct {
	ID    string
	Text  string
	Calls []*claudeToolCall
	// texts gathers the turn's text blocks while the stream is read; Text joins them once at
	// the end, since appending to Text block by block would copy it for each of thousands.
	texts []string
}

// claudeToolCall is one tool_use block, with the output of its tool_result when the stream has it.
type claudeToolCall struct {
	Tool    string          `json:"tool"`
	Input   json.RawMessage `json:"input,omitempty"`
	ID      string          `json:"id,omitempty"`
	Output  *string         `json:"output,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
}

// claudeEvent covers the event shapes of Claude Code's stream-json output:
//
//	{"type":"system","subtype":"init","model":"...","session_id":"..."}
//	{"type":"system","subtype":"api_retry","error_status":401,"error":"authentication_failed"}
//	{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"..."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{...}}]}}
//	{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"..." | [{"type":"text","text":"..."}],"is_error":false}]}}
//	{"type":"result","subtype":"success"|"error_max_turns"|...,"is_error":false,"result":"...","total_cost_usd":0.01,
//	 "duration_ms":1234,"num_turns":2,"usage":{"input_tokens":..,"cache_read_input_tokens":..,"cache_creation_input_tokens":..,"output_tokens":..}}
//
// Older versions put `cost_usd` and the token counts on the result event itself.
type claudeEvent struct {
	Type    string          `json:"type"`
	Subtype string          `json:"subtype"`
	Model   string          `json:"model"`
	Message *claudeAPIMsg   `json:"message"`
	Error   json.RawMessage `json:"error"`
	Status  *int            `json:"error_status"`
	// result
	IsError      bool            `json:"is_error"`
	Result       *string         `json:"result"`
	Errors       []string        `json:"errors"`
	TotalCostUSD *float64        `json:"total_cost_usd"`
	CostUSD      *float64        `json:"cost_usd"`
	DurationMS   *float64        `json:"duration_ms"`
	NumTurns     int             `json:"num_turns"`
	Usage        *claudeUsage    `json:"usage"`
	InputTokens  *int64          `json:"input_tokens"`
	OutputTokens *int64          `json:"output_tokens"`
	APIStatus    json.RawMessage `json:"api_error_status"`
	// An assistant event that is an API error the CLI turned into a message.
	APIErrorMessage bool `json:"is_api_error_message"`
}

type claudeAPIMsg struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type claudeUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// claudeParseStream reads the JSONL stream (one event a line). Lines that are not JSON objects
// are skipped: a stray warning must not hide an answer.
func claudeParseStream(out []byte) *claudeStream {
	s := &claudeStream{calls: map[string]*claudeToolCall{}}
	s.Skipped, _ = jsonLines(out, agentMaxOutput, s.add)
	for i := range s.Messages {
		s.Messages[i].Text, s.Messages[i].texts = strings.Join(s.Messages[i].texts, "\n"), nil
	}
	if s.Final == "" && !s.IsError {
		for i := len(s.Messages) - 1; i >= 0; i-- {
			if t := s.Messages[i].Text; strings.TrimSpace(t) != "" {
				s.Final = t
				break
			}
		}
	}
	if s.Failure == "" && s.Final == "" {
		s.Failure = s.apiError
	}
	return s
}

// add applies one JSON event; false when raw is not a JSON object.
func (s *claudeStream) add(raw []byte) bool {
	var e claudeEvent
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	s.Events++
	switch e.Type {
	case "system":
		switch e.Subtype {
		case "init":
			s.Model = e.Model
		case "api_retry":
			s.apiError = claudeAPIError(e.Status, codexErrorText(e.Error))
		}
	case "assistant":
		if e.Message == nil {
			return true
		}
		blocks := claudeBlocks(e.Message.Content)
		if e.APIErrorMessage || e.Message.Model == "<synthetic>" && len(e.Error) > 0 {
			// An API error the CLI printed as the assistant's text: a failure, not an answer.
			s.apiError = claudeBlocksText(blocks)
			return true
		}
		// Newer versions print each content block of a message as an event of its own.
		var m *claudeMessage
		if n := len(s.Messages); n > 0 && e.Message.ID != "" && s.Messages[n-1].ID == e.Message.ID {
			m = &s.Messages[n-1]
		} else {
			s.Messages = append(s.Messages, claudeMessage{ID: e.Message.ID})
			m = &s.Messages[len(s.Messages)-1]
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text != "" {
					m.texts = append(m.texts, b.Text)
				}
			case "tool_use":
				c := &claudeToolCall{Tool: b.Name, Input: b.Input, ID: b.ID}
				if len(c.Input) == 0 || string(c.Input) == "null" {
					c.Input = nil
				}
				m.Calls = append(m.Calls, c)
				if b.ID != "" {
					s.calls[b.ID] = c
				}
			}
		}
	case "user":
		if e.Message == nil {
			return true
		}
		for _, b := range claudeBlocks(e.Message.Content) {
			if b.Type != "tool_result" {
				continue
			}
			if c := s.calls[b.ToolUseID]; c != nil {
				out := claudeBlocksText(claudeBlocks(b.Content))
				c.Output, c.IsError = &out, b.IsError
			}
		}
	case "result":
		s.Result = true
		s.IsError = e.IsError || (e.Subtype != "" && e.Subtype != "success")
		s.NumTurns = e.NumTurns
		if e.Result != nil && !s.IsError {
			s.Final = *e.Result
		}
		if s.IsError {
			var result string
			if e.Result != nil {
				result = strings.TrimSpace(*e.Result)
			}
			msg := cmp.Or(result, strings.Join(e.Errors, "; "), "the run ended with "+codexFirst(e.Subtype, "an error"))
			if st := strings.TrimSpace(string(e.APIStatus)); st != "" && st != "null" {
				msg = fmt.Sprintf("%s (API status %s)", msg, st)
			}
			s.Failure = msg
		}
		s.CostUSD = e.TotalCostUSD
		if s.CostUSD == nil {
			s.CostUSD = e.CostUSD
		}
		s.DurationMS = e.DurationMS
		switch {
		case e.Usage != nil:
			s.Usage = &Usage{Input: e.Usage.InputTokens + e.Usage.CacheReadInputTokens + e.Usage.CacheCreationInputTokens,
				Output: e.Usage.OutputTokens}
			if e.Usage.CacheReadInputTokens > 0 {
				s.Usage.Cached = new(e.Usage.CacheReadInputTokens)
			}
		case e.InputTokens != nil || e.OutputTokens != nil:
			s.Usage = &Usage{}
			if e.InputTokens != nil {
				s.Usage.Input = *e.InputTokens
			}
			if e.OutputTokens != nil {
				s.Usage.Output = *e.OutputTokens
			}
		}
	}
	return true
}

func claudeAPIError(status *int, text string) string {
	if status != nil {
		return strings.TrimSpace(fmt.Sprintf("API error %d %s", *status, text))
	}
	return codexFirst(text, "API error")
}

// claudeBlocks reads message content: a list of blocks, or a plain string (one text block).
func claudeBlocks(raw json.RawMessage) []claudeBlock {
	var blocks []claudeBlock
	if json.Unmarshal(raw, &blocks) == nil {
		return blocks
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []claudeBlock{{Type: "text", Text: text}}
	}
	return nil
}

func claudeBlocksText(blocks []claudeBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
