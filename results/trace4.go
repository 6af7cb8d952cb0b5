package results

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/internal/textfmt"
)

// A test's outputs/trace.json and outputs/transcript.jsonl, as 4.42.4 writes them for `eval
// -o DIR` (packages/core/src/evaluation/run-artifacts.ts, writeTraceEnvelopeSidecar and
// writeTranscriptJsonl; the envelope is trace-envelope.ts, buildTraceEnvelopeFromEvaluationResult,
// and the transcript rows import/types.ts, traceEnvelopeToTranscriptJsonLines). The ids are
// 4.42.4's: hashes of the row's timestamp, suite, test, target and run directory name, so the
// same row gets the same ids from either program. Model text and tool data are the record's,
// already redacted, JSON-encoded here.

const (
	traceSchema      = "agentv.trace.v1"
	transcriptSchema = "agentv.transcript.v1"
	projectionSchema = "agentv.projection_identity.v1"
	transcriptEvent  = "agentv.transcript.message"
)

// hashHex is 4.42.4's hashHex: sha256 of the parts joined by NUL, hex, cut to n digits.
func hashHex(n int, parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])[:n]
}

// traceToolCall is a tool call of a message as 4.x's transcript wire has it.
type traceToolCall struct {
	Tool       string          `json:"tool"`
	Input      json.RawMessage `json:"input,omitempty"`
	Output     json.RawMessage `json:"output,omitempty"`
	ID         string          `json:"id,omitempty"`
	Status     string          `json:"status,omitempty"`
	StartTime  string          `json:"start_time,omitempty"`
	EndTime    string          `json:"end_time,omitempty"`
	DurationMS *float64        `json:"duration_ms,omitempty"`
	Trace      *traceRef       `json:"trace,omitempty"`
}

// traceMessage is a message of the transcript.
type traceMessage struct {
	Role      string          `json:"role"`
	Name      string          `json:"name,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	ToolCalls []traceToolCall `json:"tool_calls,omitempty"`
}

// readToolCalls reads a message's tool_calls; a call without a tool name is left out, as
// 4.42.4 drops it when it reads a provider's output.
func readToolCalls(raw json.RawMessage) []traceToolCall {
	var items []struct {
		traceToolCall
		Name string `json:"name"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []traceToolCall
	for _, it := range items {
		c := it.traceToolCall
		c.Tool = cmp.Or(c.Tool, it.Name)
		if c.Tool == "" {
			continue
		}
		c.Input, c.Output, c.Trace = nullless(c.Input), nullless(c.Output), nil
		out = append(out, c)
	}
	return out
}

func nullless(raw json.RawMessage) json.RawMessage {
	if string(raw) == "null" {
		return nil
	}
	return raw
}

func textMessage(role, text string) traceMessage {
	b, _ := json.Marshal(text)
	return traceMessage{Role: role, Content: b}
}

// traceMessagesOf is record r's transcript as 4.42.4 builds it (trace.ts, buildTraceMessages):
// the input the target was sent, then its output messages, the input left out when the
// output repeats it or holds the whole conversation.
func traceMessagesOf(r *Record) []traceMessage {
	var input []traceMessage
	for _, m := range requestOf(r) {
		input = append(input, textMessage(m.Role, m.Content))
	}
	var output []traceMessage
	var raw []struct {
		Role      string          `json:"role"`
		Name      string          `json:"name"`
		Content   json.RawMessage `json:"content"`
		ToolCalls json.RawMessage `json:"tool_calls"`
	}
	if len(r.Output) > 0 && json.Unmarshal(r.Output, &raw) == nil {
		for _, m := range raw {
			output = append(output, traceMessage{Role: m.Role, Name: m.Name, Content: nullless(m.Content), ToolCalls: readToolCalls(m.ToolCalls)})
		}
	} else if r.CandidateAnswer != "" {
		output = []traceMessage{textMessage("assistant", r.CandidateAnswer)}
	}
	if len(output) == 0 {
		return input
	}
	if slices.ContainsFunc(output, func(m traceMessage) bool { return m.Role == "user" || m.Role == "system" }) {
		return output // it holds the whole conversation
	}
	if len(input) == 1 && input[0].Role == output[0].Role && string(input[0].Content) == string(output[0].Content) {
		return output
	}
	return append(input, output...)
}

type traceRef struct {
	SchemaVersion string `json:"schema_version"`
	ArtifactID    string `json:"artifact_id"`
	TraceID       string `json:"trace_id"`
	SpanID        string `json:"span_id"`
	ParentSpanID  string `json:"parent_span_id,omitempty"`
}

type spanStatus struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

type spanEvent struct {
	Name       string         `json:"name"`
	Time       string         `json:"time_unix_nano,omitempty"`
	Attributes map[string]any `json:"attributes"`
}

type traceSpan struct {
	TraceID      string         `json:"trace_id"`
	SpanID       string         `json:"span_id"`
	ParentSpanID *string        `json:"parent_span_id"`
	Name         string         `json:"name"`
	Kind         string         `json:"kind"`
	Start        string         `json:"start_time_unix_nano"`
	End          string         `json:"end_time_unix_nano"`
	Status       spanStatus     `json:"status"`
	Attributes   map[string]any `json:"attributes"`
	Events       []spanEvent    `json:"events"`

	startMS, endMS int64          // for ordering the tool calls of the transcript
	call           *traceToolCall // a tool span's call
}

type traceEval struct {
	EvalPath     string  `json:"eval_path,omitempty"`
	Suite        string  `json:"suite,omitempty"`
	TestID       string  `json:"test_id"`
	Target       string  `json:"target"`
	SourceTarget string  `json:"source_target"`
	Attempt      int     `json:"attempt"`
	Variant      *string `json:"variant"`
	RunID        string  `json:"run_id"`
	Category     string  `json:"category,omitempty"`
	Experiment   string  `json:"experiment,omitempty"`
}

type projectionDimensions struct {
	RunID             string  `json:"run_id"`
	Suite             string  `json:"suite,omitempty"`
	EvalPath          string  `json:"eval_path,omitempty"`
	TestID            string  `json:"test_id"`
	Target            string  `json:"target"`
	SourceTarget      string  `json:"source_target"`
	Attempt           int     `json:"attempt"`
	Variant           *string `json:"variant"`
	EnvelopeID        string  `json:"envelope_id"`
	TraceID           string  `json:"trace_id"`
	RootSpanID        string  `json:"root_span_id"`
	ProjectionFormat  string  `json:"projection_format"`
	ProjectionVersion string  `json:"projection_version"`
}

type projectionIdentity struct {
	SchemaVersion string               `json:"schema_version"`
	ID            string               `json:"id"`
	Key           string               `json:"key"`
	Dimensions    projectionDimensions `json:"dimensions"`
}

type traceSource struct {
	Kind      string            `json:"kind"`
	Provider  string            `json:"provider"`
	SessionID string            `json:"session_id,omitempty"`
	Path      string            `json:"path"`
	Format    string            `json:"format"`
	Timestamp string            `json:"timestamp,omitempty"`
	Version   string            `json:"version"`
	Metadata  map[string]string `json:"metadata,omitempty"`
}

type traceCapture struct {
	Content        string            `json:"content"`
	RedactionLevel string            `json:"redaction_level"`
	RedactedFields []string          `json:"redacted_fields"`
	Policy         map[string]string `json:"policy,omitempty"`
}

type traceArtifacts struct {
	TracePath      string `json:"trace_path"`
	AnswerPath     string `json:"answer_path,omitempty"`
	ResponsePath   string `json:"response_path,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
}

type traceScore struct {
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	Score        float64  `json:"score"`
	Weight       *float64 `json:"weight,omitempty"` // nil: the entry has none (NoWeight)
	Verdict      string   `json:"verdict"`
	Source       string   `json:"source"`
	EvaluatedAt  string   `json:"evaluated_at"`
	TargetSpanID string   `json:"target_span_id"`
	Evidence     struct {
		SpanIDs    []string        `json:"span_ids"`
		Assertions []Assertion     `json:"assertions"`
		Details    json.RawMessage `json:"details,omitempty"`
	} `json:"evidence"`
}

type conversionWarning struct {
	Code      string            `json:"code"`
	Severity  string            `json:"severity"`
	SpanID    string            `json:"span_id"`
	SourceRef map[string]string `json:"source_ref"`
	Message   string            `json:"message"`
}

// traceEnvelope is a test's outputs/trace.json (4.42.4's TraceEnvelopeWire).
type traceEnvelope struct {
	SchemaVersion      string             `json:"schema_version"`
	ArtifactID         string             `json:"artifact_id"`
	CreatedAt          string             `json:"created_at"`
	Eval               traceEval          `json:"eval"`
	ProjectionIdentity projectionIdentity `json:"projection_identity"`
	ExportMetadata     map[string]string  `json:"export_metadata"`
	Trace              struct {
		Format     string      `json:"format"`
		TraceID    string      `json:"trace_id"`
		RootSpanID string      `json:"root_span_id"`
		Resource   any         `json:"resource"`
		Scope      any         `json:"scope"`
		Spans      []traceSpan `json:"spans"`
	} `json:"trace"`
	Source             traceSource         `json:"source"`
	Capture            traceCapture        `json:"capture"`
	ConversionWarnings []conversionWarning `json:"conversion_warnings,omitempty"`
	Artifacts          traceArtifacts      `json:"artifacts"`
	Scores             []traceScore        `json:"scores,omitempty"`

	messages []traceMessage // the transcript, for transcript.jsonl
	root     *traceSpan
}

func unixNano(ms int64) string {
	if ms == 0 {
		return "0"
	}
	return strconv.FormatInt(ms, 10) + "000000"
}

func isoMS(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// parseISO is s in Unix milliseconds, else fallback.
func parseISO(s string, fallback int64) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fallback
	}
	return t.UnixMilli()
}

// uriComponent makes url.QueryEscape JavaScript's encodeURIComponent, which also keeps !'()*
// and writes a space as %20.
var uriComponent = strings.NewReplacer("+", "%20", "%21", "!", "%27", "'", "%28", "(", "%29", ")", "%2A", "*")

func keyValue(s string) string {
	if s == "" {
		return "~"
	}
	return uriComponent.Replace(url.QueryEscape(s))
}

// scoreSources are where 4.42.4 says a score came from, by grader type ("agentv" else).
var scoreSources = map[string]string{"code-grader": "code", "llm-grader": "llm"}

// traceOf builds record r's trace envelope; runID is the run directory's name, createdAt
// the time it is written.
func traceOf(r *Record, row *v4OutRow, a v4Artifacts, runID string, createdAt time.Time) *traceEnvelope {
	suite, target, testID := r.Dataset, cmp.Or(row.Target, "unknown"), row.TestID
	traceID := hashHex(32, "execution-trace", row.Timestamp, suite, testID, target, runID)
	rootID := hashHex(16, traceID, "root")
	msgs := traceMessagesOf(r)
	startMS := parseISO(row.Timestamp, 0)
	endMS := startMS + max(row.DurationMS, 0)
	env := &traceEnvelope{SchemaVersion: traceSchema, CreatedAt: isoMS(createdAt.UnixMilli()), messages: msgs,
		ExportMetadata: map[string]string{"duplicate_policy": "update"}}
	provider := target // 4.42.4 names the provider kind when its trace has one; a record has none
	env.Source = traceSource{Kind: "agentv_run", Provider: provider, Path: IndexFile, Format: "agentv_result", Version: "1",
		Metadata: map[string]string{"target": target, "eval_case_id": testID}}
	env.Capture = traceCapture{Content: "full", RedactionLevel: "none", RedactedFields: []string{},
		Policy: map[string]string{"tool_arguments": "metadata", "tool_results": "metadata", "message_text": "metadata", "screenshots": "none", "thinking": "none"}}

	usage := map[string]any{}
	if u := row.TokenUsage; u != nil {
		usage = map[string]any{"gen_ai.usage.input_tokens": u.Input, "gen_ai.usage.output_tokens": u.Output,
			"llm.token_count.prompt": u.Input, "llm.token_count.completion": u.Output}
	}
	rootAttrs := map[string]any{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "agentv", "gen_ai.agent.name": target,
		"openinference.span.kind": "AGENT", "agentv.test_id": testID, "agentv.target": target,
		"agentv.category": row.Category, "agentv.run_id": runID, "agentv.attempt": 0,
		"agentv.execution_status": row.ExecutionStatus, "agentv.trace.duration_ms": row.DurationMS,
	}
	if suite != "" {
		rootAttrs["agentv.suite"] = suite
	}
	if r.File != "" {
		rootAttrs["agentv.eval_path"] = r.File
	}
	if row.CostUSD != nil {
		rootAttrs["agentv.trace.cost_usd"] = *row.CostUSD
	}
	maps.Copy(rootAttrs, usage)
	// span is a span of this trace, from start to end (Unix milliseconds).
	span := func(id string, parent *string, name string, start, end int64, st spanStatus, attrs map[string]any) traceSpan {
		return traceSpan{TraceID: traceID, SpanID: id, ParentSpanID: parent, Name: name, Kind: "INTERNAL",
			Start: unixNano(start), End: unixNano(end), Status: st, Attributes: attrs, Events: []spanEvent{},
			startMS: start, endMS: end}
	}
	root := span(rootID, nil, "invoke_agent "+target, startMS, endMS, spanStatus{Code: "OK"}, rootAttrs)
	if row.ExecutionStatus == v4StatusError || row.Error != "" {
		root.Status = spanStatus{Code: "ERROR", Message: row.Error}
	}
	for i, m := range msgs {
		wire := m
		wire.ToolCalls = nil
		for _, c := range m.ToolCalls {
			c.Trace = nil
			wire.ToolCalls = append(wire.ToolCalls, c)
		}
		root.Events = append(root.Events, spanEvent{Name: transcriptEvent,
			Attributes: map[string]any{"agentv.transcript.message.index": i, "agentv.transcript.message": wire}})
	}
	if row.Error != "" {
		root.Events = append(root.Events, spanEvent{Name: "exception", Time: unixNano(endMS),
			Attributes: map[string]any{"exception.message": row.Error}})
	}
	spans := []traceSpan{root}

	type entry struct {
		m     traceMessage
		index int
	}
	var chats []entry
	for i, m := range msgs {
		if m.Role == "assistant" {
			chats = append(chats, entry{m, i})
		}
	}
	if len(chats) == 0 && r.CandidateAnswer != "" {
		chats = []entry{{textMessage("assistant", r.CandidateAnswer), 0}}
	}
	for ord, c := range chats {
		chatID := hashHex(16, traceID, "chat", strconv.Itoa(c.index), strconv.Itoa(ord))
		attrs := map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": provider,
			"gen_ai.request.model": target, "gen_ai.response.model": target, "openinference.span.kind": "LLM",
			"agentv.message.index": c.index, "agentv.turn_index": ord}
		if ord == len(chats)-1 {
			maps.Copy(attrs, usage)
		}
		if c.m.Content != nil {
			attrs["gen_ai.output.messages"] = c.m.Content
		}
		spans = append(spans, span(chatID, new(rootID), "chat "+target, startMS, endMS, spanStatus{Code: "OK"}, attrs))
		for ti, call := range c.m.ToolCalls {
			toolID := hashHex(16, traceID, "tool", strconv.Itoa(c.index), strconv.Itoa(ti), call.Tool)
			s := parseISO(call.StartTime, startMS)
			end := endMS
			if call.DurationMS != nil {
				end = s + int64(*call.DurationMS+0.5)
			}
			e := max(parseISO(call.EndTime, end), s)
			id := call.ID
			tattrs := map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.Tool,
				"openinference.span.kind": "TOOL", "tool.name": call.Tool, "agentv.message.index": c.index, "agentv.tool.index": ti}
			if id == "" {
				id = "agentv-tool-" + hashHex(12, testID, target, strconv.Itoa(c.index), strconv.Itoa(ti))
				tattrs["agentv.generated_tool_call_id"] = true
				env.ConversionWarnings = append(env.ConversionWarnings, conversionWarning{Code: "missing_tool_call_id",
					Severity: "warning", SpanID: toolID, SourceRef: map[string]string{"event_id": fmt.Sprintf("message-%d-tool-%d", c.index, ti)},
					Message: "Deterministic tool call id generated from source order."})
			}
			tattrs["gen_ai.tool.call.id"], tattrs["tool.id"] = id, id
			if call.Input != nil {
				tattrs["gen_ai.tool.call.arguments"] = call.Input
			}
			if call.Output != nil {
				tattrs["gen_ai.tool.call.result"] = call.Output
			}
			status := spanStatus{Code: "OK"}
			switch call.Status {
			case "error", "timeout", "cancelled":
				status = spanStatus{Code: "ERROR", Message: call.Status}
			}
			projected := call
			projected.ID, projected.StartTime, projected.EndTime = id, isoMS(s), isoMS(e)
			projected.DurationMS = new(float64(e - s))
			projected.Status = "ok"
			if status.Code == "ERROR" {
				projected.Status = "error"
			}
			tool := span(toolID, new(chatID), "execute_tool "+call.Tool, s, e, status, tattrs)
			tool.call = &projected
			spans = append(spans, tool)
		}
	}
	env.root = &spans[0]

	env.ArtifactID = "execution-trace-" + hashHex(20, traceID, row.Timestamp, textfmt.JSNumber(row.Score))
	env.Eval = traceEval{EvalPath: r.File, Suite: suite, TestID: testID, Target: target, SourceTarget: target,
		RunID: runID, Category: row.Category, Experiment: row.Experiment}
	dims := projectionDimensions{RunID: runID, Suite: suite, EvalPath: r.File, TestID: testID, Target: target,
		SourceTarget: target, EnvelopeID: env.ArtifactID, TraceID: traceID, RootSpanID: rootID,
		ProjectionFormat: "execution_trace", ProjectionVersion: traceSchema}
	key := projectionSchema + ":" + strings.Join([]string{
		"projection_format=" + keyValue(dims.ProjectionFormat), "projection_version=" + keyValue(dims.ProjectionVersion),
		"run_id=" + keyValue(runID), "suite=" + keyValue(suite), "eval_path=" + keyValue(r.File),
		"test_id=" + keyValue(testID), "target=" + keyValue(target), "source_target=" + keyValue(target),
		"attempt=0", "variant=~", "envelope_id=" + keyValue(env.ArtifactID), "trace_id=" + keyValue(traceID),
		"root_span_id=" + keyValue(rootID)}, "|")
	env.ProjectionIdentity = projectionIdentity{SchemaVersion: projectionSchema, ID: "agentv-prj-" + hashHex(32, key), Key: key, Dimensions: dims}
	env.Trace.Format, env.Trace.TraceID, env.Trace.RootSpanID = "otlp_openinference_spans", traceID, rootID
	env.Trace.Resource = map[string]any{"attributes": map[string]string{"service.name": "agentv"}}
	env.Trace.Scope = map[string]string{"name": "agentv"}
	env.Trace.Spans = spans

	env.Artifacts = traceArtifacts{TracePath: "outputs/trace.json"}
	if a.AnswerPath != "" {
		env.Artifacts.AnswerPath, env.Artifacts.ResponsePath = "outputs/answer.md", "outputs/response.md"
	}
	if a.TranscriptPath != "" {
		env.Artifacts.TranscriptPath = "outputs/transcript.jsonl"
	}
	for _, s := range row.Scores {
		ts := traceScore{Name: s.Name, Type: s.Type, Score: s.Score, Weight: s.Weight, Verdict: s.Verdict,
			Source: cmp.Or(scoreSources[s.Type], "agentv"), EvaluatedAt: row.Timestamp, TargetSpanID: rootID}
		ts.Evidence.SpanIDs = []string{rootID}
		ts.Evidence.Assertions = s.Assertions // hits and misses: no evidence
		ts.Evidence.Details = s.Details
		env.Scores = append(env.Scores, ts)
	}
	return env
}

// transcriptRow is a line of outputs/transcript.jsonl.
type transcriptRow struct {
	SchemaVersion string `json:"schema_version"`
	TestID        string `json:"test_id"`
	Target        string `json:"target"`
	MessageIndex  int    `json:"message_index"`
	traceMessage
	TokenUsage *TokenUsage  `json:"transcript_token_usage,omitempty"`
	DurationMS int64        `json:"transcript_duration_ms"`
	CostUSD    *float64     `json:"transcript_cost_usd,omitempty"`
	Capture    traceCapture `json:"capture"`
	Trace      traceRef     `json:"trace"`
	Source     traceSource  `json:"source"`
}

// transcriptOf is the transcript.jsonl rows of env: a row per message, each pointing at the
// span of its chat turn (else the root), its tool calls at their spans.
func transcriptOf(env *traceEnvelope, row *v4OutRow) []transcriptRow {
	ref := func(span, parent string) traceRef {
		return traceRef{SchemaVersion: traceSchema, ArtifactID: env.ArtifactID, TraceID: env.Trace.TraceID, SpanID: span, ParentSpanID: parent}
	}
	byIndex := map[int]traceRef{}
	var tools []*traceSpan
	for i := range env.Trace.Spans {
		s := &env.Trace.Spans[i]
		if s.call != nil {
			tools = append(tools, s)
			continue
		}
		if s.Attributes["openinference.span.kind"] == "LLM" {
			byIndex[s.Attributes["agentv.message.index"].(int)] = ref(s.SpanID, *s.ParentSpanID)
		}
	}
	// 4.42.4 pairs a message's calls with the tool spans in time order.
	slices.SortStableFunc(tools, func(a, b *traceSpan) int {
		return cmp.Or(cmp.Compare(a.startMS, b.startMS), cmp.Compare(a.endMS, b.endMS),
			cmp.Compare(a.SpanID, b.SpanID))
	})
	used := make([]bool, len(tools))
	src := env.Source
	src.SessionID, src.Timestamp = env.Eval.RunID, isoMS(env.root.startMS)
	capture := env.Capture
	capture.Policy = nil
	var out []transcriptRow
	for i, m := range env.messages {
		tr := transcriptRow{SchemaVersion: transcriptSchema, TestID: row.TestID, Target: env.Eval.Target, MessageIndex: i,
			traceMessage: traceMessage{Role: m.Role, Name: m.Name, Content: m.Content}, TokenUsage: row.TokenUsage,
			DurationMS: row.DurationMS, CostUSD: row.CostUSD, Capture: capture, Source: src}
		tr.Trace = ref(env.root.SpanID, "")
		if r, ok := byIndex[i]; ok {
			tr.Trace = r
		}
		for _, c := range m.ToolCalls {
			var p *traceToolCall
			var span *traceSpan
			for k, s := range tools {
				if used[k] || (c.ID != "" && s.call.ID != c.ID) || (c.ID == "" && s.call.Tool != c.Tool) {
					continue
				}
				used[k], p, span = true, s.call, s
				break
			}
			merged := c
			if p != nil {
				merged.Status = p.Status
				merged.ID, merged.StartTime = cmp.Or(merged.ID, p.ID), cmp.Or(merged.StartTime, p.StartTime)
				merged.EndTime = cmp.Or(merged.EndTime, p.EndTime)
				if merged.DurationMS == nil {
					merged.DurationMS = p.DurationMS
				}
				merged.Trace = new(ref(span.SpanID, *span.ParentSpanID))
			}
			tr.ToolCalls = append(tr.ToolCalls, merged)
		}
		out = append(out, tr)
	}
	return out
}
