package evaluators

import (
	"encoding/json"
	"errors"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/suite"
)

// v4FileBackedOutput is the size of the JSON-encoded answer above which a 4.x payload carries
// it in a file (output_path) instead of inline, as AgentV 4.x does for large answers.
const v4FileBackedOutput = 50_000

// isV4 reports whether the case comes from an AgentV 4.x file.
func isV4(in *Input) bool {
	return in != nil && in.Case != nil && in.Case.Suite != nil && in.Case.Suite.Dialect == suite.Dialect4
}

// v4Payload is the payload of graders in 4.x files: the 4.x names first, then the 2.5 names
// that mean the same or do not collide, so a grader written for either reads what it expects.
// Where a name means different things (trace_summary), the 4.x meaning wins.
type v4Payload struct {
	Criteria       string          `json:"criteria"`
	ExpectedOutput json.RawMessage `json:"expected_output"`
	Output         *string         `json:"output"` // null when it went to output_path
	Answer         *string         `json:"answer,omitempty"`
	Messages       json.RawMessage `json:"messages"`
	OutputPath     string          `json:"output_path,omitempty"`
	InputFiles     []string        `json:"input_files"`
	Input          json.RawMessage `json:"input"`
	Metadata       json.RawMessage `json:"metadata"`
	Trace          *v4Trace        `json:"trace"`
	TraceSummary   *v4TraceSummary `json:"trace_summary"`
	TokenUsage     any             `json:"token_usage"`
	CostUSD        *float64        `json:"cost_usd"`
	DurationMS     *float64        `json:"duration_ms"`
	StartTime      *string         `json:"start_time"`
	EndTime        *string         `json:"end_time"`
	FileChanges    *string         `json:"file_changes"`
	WorkspacePath  *string         `json:"workspace_path"`
	Config         json.RawMessage `json:"config"`

	Question         string          `json:"question"`
	ExpectedOutcome  string          `json:"expected_outcome"`
	ActualOutput     string          `json:"actual_output"`
	OutputMessages   json.RawMessage `json:"output_messages"`
	ReferenceAnswer  *string         `json:"reference_answer"`
	GuidelineFiles   []string        `json:"guideline_files"`
	CandidateAnswer  string          `json:"candidate_answer"`
	InputMessages    json.RawMessage `json:"input_messages"`
	ExpectedMessages json.RawMessage `json:"expected_messages"`
}

// v4TraceSummary is 4.x's summary of a run: tool calls counted by name, errors, model turns.
type v4TraceSummary struct {
	EventCount   int            `json:"event_count"`
	ToolCalls    map[string]int `json:"tool_calls"`
	ErrorCount   int            `json:"error_count"`
	LLMCallCount int            `json:"llm_call_count"`
}

// v4Trace is the summary with the whole transcript.
type v4Trace struct {
	v4TraceSummary
	Messages json.RawMessage `json:"messages"`
}

// v4PayloadOpts are the variations of the 4.x payload.
type v4PayloadOpts struct {
	config     json.RawMessage
	outputPath string // the answer was written here: output is null
	template   bool   // a prompt template's payload, which also has `answer`
}

// v4Payload builds the 4.x payload of the case.
func (d *caseData) v4Payload(o v4PayloadOpts) ([]byte, error) {
	if err := d.messages(); err != nil {
		return nil, err
	}
	in, c := d.in, d.in.Case
	transcript, err := d.transcript()
	if err != nil {
		return nil, err
	}
	cand := in.Candidate
	p := v4Payload{
		Criteria: c.ExpectedOutcome, ExpectedOutput: d.expected, Output: &cand, Messages: transcript,
		OutputPath: o.outputPath, InputFiles: nonNil(c.InputFiles), Input: d.input, Metadata: json.RawMessage("null"),
		Question: c.Question, ExpectedOutcome: c.ExpectedOutcome, ActualOutput: cand, OutputMessages: d.output,
		GuidelineFiles: nonNil(c.GuidelinePaths), CandidateAnswer: cand, InputMessages: d.input, ExpectedMessages: d.expected,
	}
	if o.outputPath != "" {
		p.Output = nil
	}
	if o.template {
		p.Answer = &cand
	}
	if in.Request != nil {
		if p.Question == "" {
			p.Question = in.Request.Question
		}
		if ws := in.Request.Workspace; ws != "" {
			p.WorkspacePath = &ws
		}
	}
	if c.HasReference {
		p.ReferenceAnswer = &c.ReferenceAnswer
	}
	sum := v4TraceSummary{ToolCalls: map[string]int{}, LLMCallCount: d.assistantTurns()}
	if t := in.Trace; t != nil {
		sum.ErrorCount = t.ErrorCount
		for name, n := range t.ToolCallsByName {
			sum.ToolCalls[name] = n
			sum.EventCount += n
		}
		if t.TokenUsage != nil {
			p.TokenUsage = t.TokenUsage
		}
		p.CostUSD, p.DurationMS = t.CostUSD, t.DurationMS
	}
	p.TraceSummary = &sum
	p.Trace = &v4Trace{v4TraceSummary: sum, Messages: transcript}
	if !isNull(o.config) {
		if !json.Valid(o.config) {
			return nil, errors.New("evaluator config is not valid JSON")
		}
		p.Config = o.config
	}
	return jsonx.Marshal(&p)
}

// transcript is the conversation as 4.x graders see it: the input messages, then the target's
// output messages (or its answer as one assistant message).
func (d *caseData) transcript() (json.RawMessage, error) {
	msgs := append([]suite.Message(nil), d.in.Case.Input...)
	if resp := d.in.Response; resp != nil && len(resp.OutputMessages) > 0 {
		msgs = append(msgs, resp.OutputMessages...)
	} else {
		msgs = append(msgs, suite.Message{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: d.in.Candidate}})
	}
	return messagesJSON(msgs)
}

// assistantTurns counts the model's turns: its output's assistant messages, at least one.
func (d *caseData) assistantTurns() int {
	n := 0
	if resp := d.in.Response; resp != nil {
		for i := range resp.OutputMessages {
			if resp.OutputMessages[i].Role == suite.RoleAssistant {
				n++
			}
		}
	}
	return max(n, 1)
}
