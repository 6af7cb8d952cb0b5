package evaluators

import (
	"cmp"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// v4FileBackedOutput is the size of the JSON-encoded answer above which a 4.x payload carries
// it in a file (output_path) instead of inline, as AgentV 4.x does for large answers.
const v4FileBackedOutput = 50_000

// payload is what a grader's process (code grader, prompt template) gets on stdin: AgentV
// 4.42.4's payload under its rules, else 2.5's (which reads only opts.config).
func (r *caseRun) payload(opts v4PayloadOpts) ([]byte, error) {
	if r.rules.As442 {
		return r.data.v4Payload(opts)
	}
	return r.data.payload(opts.config)
}

// v4Payload is what AgentV 4.42.4 sends a code grader of a 4.x file on stdin, field for field
// (packages/core/src/evaluation/graders/code-grader.ts): 4.x names only. 4.42.4's Python
// helper rejects the 2.5 names (reference_answer, ...), and its TypeScript SDK requires the
// canonical trace (messages and events). An executable prompt template of an llm-grader gets
// `answer` and no measures (graders/prompt-resolution.ts, executePromptTemplate).
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
	*v4Measures                    // a code grader's
	FileChanges    *string         `json:"file_changes"`
	WorkspacePath  *string         `json:"workspace_path"`
	Config         json.RawMessage `json:"config"`
}

// v4Measures are the trace's summary and measures, repeated at the top of a code grader's payload.
type v4Measures struct {
	TraceSummary *v4TraceSummary `json:"trace_summary"`
	TokenUsage   any             `json:"token_usage"`
	CostUSD      *float64        `json:"cost_usd"`
	DurationMS   *float64        `json:"duration_ms"`
	StartTime    *string         `json:"start_time"`
	EndTime      *string         `json:"end_time"`
}

// v4TraceSummary is 4.x's compact summary of the target's output: tool calls counted by name
// (with their durations when known), errors, model turns.
type v4TraceSummary struct {
	EventCount    int                  `json:"event_count"`
	ToolCalls     map[string]int       `json:"tool_calls"`
	ErrorCount    int                  `json:"error_count"`
	ToolDurations map[string][]float64 `json:"tool_durations,omitempty"`
	LLMCallCount  int                  `json:"llm_call_count"`
}

// v4Trace is 4.x's canonical trace of a case (trace.ts, buildTraceFromMessages): the summary,
// the whole transcript, and the events derived from it.
type v4Trace struct {
	EventCount    int                  `json:"event_count"`
	ToolCalls     map[string]int       `json:"tool_calls"`
	ErrorCount    int                  `json:"error_count"`
	LLMCallCount  int                  `json:"llm_call_count"`
	ToolDurations map[string][]float64 `json:"tool_durations,omitempty"`
	Messages      json.RawMessage      `json:"messages"`
	Events        []v4Event            `json:"events"`
	TokenUsage    any                  `json:"token_usage,omitempty"`
	CostUSD       *float64             `json:"cost_usd,omitempty"`
	DurationMS    *float64             `json:"duration_ms,omitempty"`
	StartTime     *string              `json:"start_time,omitempty"`
	EndTime       *string              `json:"end_time,omitempty"`
	Metadata      v4TraceMetadata      `json:"metadata"`
}

// v4TraceMetadata is where the trace came from.
type v4TraceMetadata struct {
	Provider          string `json:"provider,omitempty"`
	Target            string `json:"target,omitempty"`
	EvalCaseID        string `json:"eval_case_id,omitempty"`
	ProviderSessionID string `json:"provider_session_id,omitempty"`
}

// v4Event is one event of a trace: a message, a tool call, its result, the final response.
type v4Event struct {
	EventID       string           `json:"event_id"`
	ParentEventID string           `json:"parent_event_id,omitempty"`
	Ordinal       int              `json:"ordinal"`
	Type          string           `json:"type"`
	Timestamp     json.RawMessage  `json:"timestamp,omitempty"`
	DurationMS    json.RawMessage  `json:"duration_ms,omitempty"`
	Message       *v4EventMessage  `json:"message,omitempty"`
	Tool          *v4EventTool     `json:"tool,omitempty"`
	Metadata      *v4EventMetadata `json:"metadata,omitempty"`
}

type v4EventMessage struct {
	Role    string          `json:"role"`
	Name    string          `json:"name,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
}

type v4EventTool struct {
	Name   string          `json:"name"`
	CallID json.RawMessage `json:"call_id,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	Status json.RawMessage `json:"status"`
}

type v4EventMetadata struct {
	MessageIndex int  `json:"message_index"`
	ToolIndex    *int `json:"tool_index,omitempty"`
}

// v4PayloadOpts are the variations of the 4.x payload.
type v4PayloadOpts struct {
	config     json.RawMessage
	outputPath string // the answer was written here: output is null
	template   bool   // a prompt template's payload
}

// v4Payload builds the 4.x payload of the case.
func (d *caseData) v4Payload(o v4PayloadOpts) ([]byte, error) {
	if err := d.messages(); err != nil {
		return nil, err
	}
	in, c := d.in, d.in.Case
	var config, metadata json.RawMessage // nil: null
	if !isNull(o.config) {
		if !json.Valid(o.config) {
			return nil, errors.New("evaluator config is not valid JSON")
		}
		config = o.config
	}
	if len(c.Metadata) > 0 {
		metadata = c.Metadata
	}
	tr, sum, err := d.v4Trace()
	if err != nil {
		return nil, err
	}
	cand := in.Candidate
	p := v4Payload{
		Criteria: c.ExpectedOutcome, ExpectedOutput: d.expected, Output: &cand, Messages: tr.Messages,
		OutputPath: o.outputPath, InputFiles: v4InputFiles(c.Input), Input: d.input, Metadata: metadata,
		Trace: tr, FileChanges: orNull(in.FileChanges), Config: config,
	}
	if in.Request != nil {
		p.WorkspacePath = orNull(in.Request.Workspace)
	}
	switch {
	case o.template:
		p.Answer = &cand
	case o.outputPath != "":
		p.Output = nil
		fallthrough
	default:
		p.v4Measures = &v4Measures{TraceSummary: sum, TokenUsage: tr.TokenUsage, CostUSD: tr.CostUSD,
			DurationMS: tr.DurationMS, StartTime: tr.StartTime, EndTime: tr.EndTime}
	}
	// Every key spelled as 4.42.4 sends it: code-grader.ts and prompt-resolution.ts call
	// toSnakeCaseDeep on the whole payload, so the keys of the user's config, metadata, message
	// contents and tool inputs change too.
	raw, err := jsonx.Marshal(&p)
	if err != nil {
		return nil, err
	}
	return snakeKeys4(raw)
}

// orNull is s, or nil (null) when it is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// v4InputFiles is every file the input references and that was found, in order, guideline
// files included (4.x has no guidelines): 4.42.4's collectResolvedInputFilePaths
// (input-message-utils.ts).
func v4InputFiles(input []suite.Message) []string {
	files := []string{}
	for i := range input {
		for _, seg := range input[i].Content.Segments {
			if seg.Type == "file" && seg.Resolved != "" {
				files = append(files, seg.Resolved)
			}
		}
	}
	return files
}

// v4Trace builds the case's trace as 4.42.4 builds it for graders: the transcript (the input,
// then the target's output, or the output alone when it already holds the conversation), one
// event per message, tool call and tool result, and a final-response event; counts come from
// the target's output.
func (d *caseData) v4Trace() (*v4Trace, *v4TraceSummary, error) {
	in := d.in
	output := []suite.Message{{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: in.Candidate}}}
	if resp := in.Response; resp != nil && len(resp.OutputMessages) > 0 {
		output = resp.OutputMessages
	}
	msgs := traceMessages(resultInput(in), output)
	transcript, err := messagesJSON(msgs)
	if err != nil {
		return nil, nil, err
	}
	var parsed []traceMessage
	if err := json.Unmarshal(transcript, &parsed); err != nil {
		return nil, nil, err
	}
	outParsed := parsed[len(parsed)-len(output):]
	sum, start, end := summarize(outParsed)

	tr := &v4Trace{EventCount: sum.EventCount, ToolCalls: sum.ToolCalls, ErrorCount: sum.ErrorCount,
		LLMCallCount: sum.LLMCallCount, ToolDurations: sum.ToolDurations, Messages: transcript,
		StartTime: start, EndTime: end}
	if resp := in.Response; resp != nil {
		if u := resp.Usage; u != nil {
			tr.TokenUsage = (*results.TokenUsage)(u)
		}
		tr.CostUSD, tr.DurationMS = resp.CostUSD, resp.DurationMS
	}
	if in.Target != nil {
		tr.Metadata.Provider, tr.Metadata.Target = in.Target.Kind, in.Target.Name
	}
	tr.Metadata.EvalCaseID, tr.Metadata.ProviderSessionID = in.Case.ID, in.Case.ConversationID
	tr.Events = traceEvents(parsed, in.Candidate, end)
	return tr, sum, nil
}

// resultInput is the input side of the transcript as 4.42.4 records it (orchestrator.ts,
// buildResultInput, line 3502): the prompt the target was sent, as its chat messages when it
// had several (role-marker mode), else one user message holding the formatted question. A
// case that never reached its target keeps its input messages.
func resultInput(in *Input) []suite.Message {
	req := in.Request
	if req == nil {
		return in.Case.Input
	}
	text := func(role, s string) suite.Message {
		return suite.Message{Role: role, Content: suite.Content{Kind: suite.ContentText, Text: s}}
	}
	if len(req.Chat) > 0 {
		out := make([]suite.Message, len(req.Chat))
		for i, m := range req.Chat {
			out[i] = text(m.Role, m.Content)
		}
		return out
	}
	return []suite.Message{text(suite.RoleUser, req.Question)}
}

// traceMessages is 4.42.4's transcript (trace.ts, buildTraceMessages): a target that answers
// with the whole conversation (a user or system message in its output) is not prefixed with
// the input again, nor is one that repeats a single input message first.
func traceMessages(input, output []suite.Message) []suite.Message {
	if len(output) == 0 {
		return input
	}
	for i := range output {
		if output[i].Role == suite.RoleUser || output[i].Role == suite.RoleSystem {
			return output
		}
	}
	if len(input) == 1 && sameMessage(&input[0], &output[0]) {
		return output
	}
	return append(append(make([]suite.Message, 0, len(input)+len(output)), input...), output...)
}

// sameMessage compares role and content, as 4.42.4 compares their JSON.
func sameMessage(a, b *suite.Message) bool {
	if a.Role != b.Role {
		return false
	}
	ja, errA := messagesJSON([]suite.Message{{Role: a.Role, Content: a.Content}})
	jb, errB := messagesJSON([]suite.Message{{Role: b.Role, Content: b.Content}})
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// traceMessage is a message of the transcript as graders see it, read back for its events.
type traceMessage struct {
	Role      string          `json:"role"`
	Name      string          `json:"name"`
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"`
}

// traceToolCall is one item of a message's tool_calls; absent fields stay nil.
type traceToolCall struct {
	Tool       string          `json:"tool"`
	Name       string          `json:"name"`
	ID         json.RawMessage `json:"id"`
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output"`
	Status     json.RawMessage `json:"status"`
	StartTime  json.RawMessage `json:"start_time"`
	EndTime    json.RawMessage `json:"end_time"`
	DurationMS json.RawMessage `json:"duration_ms"`
}

func (tc *traceToolCall) name() string { return cmp.Or(tc.Tool, tc.Name) }

// messageToolCalls is m's tool calls; none when they are absent, null or not a list.
func messageToolCalls(m *traceMessage) []traceToolCall {
	var calls []traceToolCall
	if json.Unmarshal(m.ToolCalls, &calls) != nil {
		return nil
	}
	return calls
}

// summarize counts the target's output as 4.42.4 does (trace.ts, computeTraceSummary): tool
// calls by name, their durations (duration_ms, else end minus start), assistant messages, and
// the earliest start and latest end of the tool calls.
func summarize(output []traceMessage) (sum *v4TraceSummary, start, end *string) {
	sum = &v4TraceSummary{ToolCalls: map[string]int{}}
	var first, last time.Time
	for i := range output {
		if output[i].Role == suite.RoleAssistant {
			sum.LLMCallCount++
		}
		for _, tc := range messageToolCalls(&output[i]) {
			name := tc.name()
			sum.ToolCalls[name]++
			sum.EventCount++
			st, stOK := parseTime(tc.StartTime)
			et, etOK := parseTime(tc.EndTime)
			if stOK && (first.IsZero() || st.Before(first)) {
				first = st
			}
			if etOK && (last.IsZero() || et.After(last)) {
				last = et
			}
			var ms float64
			switch {
			case json.Unmarshal(tc.DurationMS, &ms) == nil:
			case stOK && etOK:
				ms = float64(et.Sub(st).Milliseconds())
			default:
				continue
			}
			if sum.ToolDurations == nil {
				sum.ToolDurations = map[string][]float64{}
			}
			sum.ToolDurations[name] = append(sum.ToolDurations[name], ms)
		}
	}
	return sum, isoTime(first), isoTime(last)
}

func parseTime(raw json.RawMessage) (time.Time, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// isoTime is JavaScript's Date.toISOString: UTC with milliseconds; nil for the zero time.
func isoTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000Z")
	return &s
}

// traceEvents derives the trace's events from its messages (trace.ts, buildTraceFromMessages).
func traceEvents(msgs []traceMessage, final string, end *string) []v4Event {
	events := make([]v4Event, 0, len(msgs)+1)
	add := func(e v4Event) {
		e.Ordinal = len(events)
		events = append(events, e)
	}
	for i := range msgs {
		m := &msgs[i]
		id := "message-" + strconv.Itoa(i)
		add(v4Event{EventID: id, Type: "message", Message: &v4EventMessage{Role: m.Role, Name: m.Name, Content: m.Content},
			Metadata: &v4EventMetadata{MessageIndex: i}})
		for k, tc := range messageToolCalls(m) {
			status := tc.Status
			if isNull(status) {
				status = json.RawMessage(`"ok"`)
			}
			toolID := id + "-tool-" + strconv.Itoa(k)
			meta := &v4EventMetadata{MessageIndex: i, ToolIndex: &k}
			add(v4Event{EventID: toolID, ParentEventID: id, Type: "tool_call", Timestamp: tc.StartTime, DurationMS: tc.DurationMS,
				Tool: &v4EventTool{Name: tc.name(), CallID: tc.ID, Input: tc.Input, Output: tc.Output, Status: status}, Metadata: meta})
			if tc.Output != nil {
				add(v4Event{EventID: toolID + "-result", ParentEventID: toolID, Type: "tool_result", Timestamp: tc.EndTime,
					Tool: &v4EventTool{Name: tc.name(), CallID: tc.ID, Output: tc.Output, Status: status}, Metadata: meta})
			}
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != suite.RoleAssistant {
			continue
		}
		content, _ := jsonx.Marshal(final)
		e := v4Event{EventID: "final-response", ParentEventID: "message-" + strconv.Itoa(i), Type: "final_response",
			Message: &v4EventMessage{Role: msgs[i].Role, Name: msgs[i].Name, Content: content}, Metadata: &v4EventMetadata{MessageIndex: i}}
		if end != nil {
			e.Timestamp, _ = jsonx.Marshal(*end)
		}
		add(e)
		break
	}
	return events
}
