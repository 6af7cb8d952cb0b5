package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentv/action/internal/golden"
)

const records = "testdata/results.jsonl"

// export writes the traces of the test records with content captured or not.
func export(t *testing.T, capture bool, srcs ...string) []byte {
	t.Helper()
	if len(srcs) == 0 {
		srcs = []string{records}
	}
	out := filepath.Join(t.TempDir(), "sub", "otel.json")
	if err := WriteFile(out, srcs, Options{CaptureContent: capture, Version: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGolden: the file for the test records, indented for review (the file itself is one
// line, which an otlpjsonfile receiver reads as one request).
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		capture bool
	}{{"otel.json", false}, {"otel-content.json", true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := export(t, tt.capture)
			if n := bytes.Count(b, []byte("\n")); n != 1 || !bytes.HasSuffix(b, []byte("\n")) {
				t.Errorf("the file has %d line ends, want one at its end", n)
			}
			var ind bytes.Buffer
			if err := json.Indent(&ind, b, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", tt.name), ind.Bytes())
		})
	}
}

// TestCollectorDecodes reads the file with the collector's OTLP JSON decoder and checks the
// shape of every trace: one root a case, parents in the same trace, the named children.
func TestCollectorDecodes(t *testing.T) {
	t.Parallel()
	b := export(t, true)
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(b)
	if err != nil {
		t.Fatal(err)
	}
	type spanInfo struct {
		span  ptrace.Span
		attrs map[string]any
	}
	traces := map[pcommon.TraceID][]spanInfo{}
	var order []pcommon.TraceID
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		if v, _ := rs.Resource().Attributes().Get("service.name"); v.Str() != "agentv" {
			t.Errorf("resource %d: service.name %q", i, v.Str())
		}
		spans := rs.ScopeSpans().At(0).Spans()
		for j := 0; j < spans.Len(); j++ {
			s := spans.At(j)
			if _, ok := traces[s.TraceID()]; !ok {
				order = append(order, s.TraceID())
			}
			traces[s.TraceID()] = append(traces[s.TraceID()], spanInfo{s, s.Attributes().AsRaw()})
		}
	}
	if len(order) != 5 {
		t.Fatalf("%d traces, want one per case (5)", len(order))
	}
	names := map[string][]string{} // test id -> span names, in order
	for _, id := range order {
		spans := traces[id]
		ids := map[pcommon.SpanID]bool{}
		var roots []spanInfo
		for _, s := range spans {
			if ids[s.span.SpanID()] {
				t.Errorf("span id %s twice", s.span.SpanID())
			}
			ids[s.span.SpanID()] = true
			if s.span.ParentSpanID().IsEmpty() {
				roots = append(roots, s)
			}
			if s.span.EndTimestamp() < s.span.StartTimestamp() {
				t.Errorf("%s ends before it starts", s.span.Name())
			}
		}
		if len(roots) != 1 || roots[0].span.Name() != "agentv.eval" {
			t.Fatalf("trace %s: %d roots, want one agentv.eval", id, len(roots))
		}
		root := roots[0]
		for _, s := range spans {
			if p := s.span.ParentSpanID(); !p.IsEmpty() && !ids[p] {
				t.Errorf("%s: parent %s is not in its trace", s.span.Name(), p)
			}
			if s.span.StartTimestamp() < root.span.StartTimestamp() || s.span.EndTimestamp() > root.span.EndTimestamp() {
				t.Errorf("%s lies outside its case", s.span.Name())
			}
		}
		tid := root.attrs["agentv.test_id"].(string)
		for _, s := range spans {
			names[tid] = append(names[tid], s.span.Name())
		}
		switch tid {
		case "refund-window":
			want := map[string]any{"agentv.score": 0.9, "agentv.verdict": "pass", "agentv.target": "gpt", "agentv.suite": "support",
				"agentv.trace.cost_usd": 0.0042, "agentv.trace.token_input": int64(1200), "agentv.trace.tool_names": "lookup_order,search_docs",
				"gen_ai.operation.name": "evaluate", "agentv.baseline_score": 0.7, "session.id": "2026-02-01T10:00:00.000Z"}
			for k, v := range want {
				if root.attrs[k] != v {
					t.Errorf("%s: %s = %v, want %v", tid, k, root.attrs[k], v)
				}
			}
			if root.span.Status().Code() != ptrace.StatusCodeOk {
				t.Errorf("%s: status %v", tid, root.span.Status().Code())
			}
			if root.span.Events().Len() != 2 || root.span.Events().At(0).Name() != "agentv.grader.rubric" {
				t.Errorf("%s: grader events %d", tid, root.span.Events().Len())
			}
			chat := spans[1]
			if chat.attrs["gen_ai.usage.input_tokens"] != int64(1200) || chat.attrs["gen_ai.usage.cache_read.input_tokens"] != int64(1000) ||
				chat.attrs["gen_ai.usage.cost"] != 0.0042 || chat.span.Kind() != ptrace.SpanKindClient || chat.span.ParentSpanID() != root.span.SpanID() {
				t.Errorf("%s: target span %s %v", tid, chat.span.Name(), chat.attrs)
			}
			// The composite's parts are children of its span.
			var composite, polite spanInfo
			for _, s := range spans {
				switch s.attrs["agentv.grader.name"] {
				case "checks":
					composite = s
				case "polite":
					polite = s
				}
			}
			if polite.span.ParentSpanID() != composite.span.SpanID() || polite.attrs["gen_ai.evaluation.score.value"] != 0.6 ||
				polite.attrs["agentv.grader.attempts"] != int64(2) || polite.attrs["gen_ai.evaluation.explanation"] != "Curt." {
				t.Errorf("%s: polite grader %v", tid, polite.attrs)
			}
		case "fix-bug":
			if root.span.Status().Code() != ptrace.StatusCodeError || !strings.Contains(root.span.Status().Message(), "timed out") {
				t.Errorf("%s: root status %v %q", tid, root.span.Status().Code(), root.span.Status().Message())
			}
			agent := spans[1]
			if agent.attrs["gen_ai.operation.name"] != "invoke_agent" || agent.span.Status().Code() != ptrace.StatusCodeError || agent.attrs["agentv.attempts"] != int64(3) {
				t.Errorf("%s: agent span %v %v", tid, agent.attrs, agent.span.Status().Code())
			}
		case "shipping-cost":
			var trials []spanInfo
			for _, s := range spans {
				if s.span.Name() == "agentv.trial" {
					trials = append(trials, s)
				}
			}
			if len(trials) != 2 || trials[1].attrs["agentv.trial"] != int64(2) || trials[1].attrs["agentv.trace.cost_usd"] != 0.006 {
				t.Fatalf("%s: trials %v", tid, trials)
			}
			if trials[0].span.EndTimestamp() > trials[1].span.StartTimestamp() {
				t.Errorf("%s: trials overlap", tid)
			}
			for _, s := range spans {
				if s.span.Name() == "chat gpt" && s.span.ParentSpanID() != trials[0].span.SpanID() && s.span.ParentSpanID() != trials[1].span.SpanID() {
					t.Errorf("%s: a target call outside its trial", tid)
				}
			}
		case "triage":
			var tools []spanInfo
			for _, s := range spans {
				if s.attrs["gen_ai.operation.name"] == "execute_tool" {
					tools = append(tools, s)
				}
			}
			agent := spans[1]
			if len(tools) != 3 || tools[0].attrs["gen_ai.tool.name"] != "Read" || tools[2].attrs["gen_ai.tool.call.id"] != "t3" ||
				tools[0].span.ParentSpanID() != agent.span.SpanID() || tools[1].span.Status().Code() != ptrace.StatusCodeError ||
				tools[1].attrs["gen_ai.tool.call.arguments"] != `{"command":"go test ./..."}` || tools[2].attrs["gen_ai.tool.call.result"] != "ok" {
				t.Fatalf("%s: tool spans %v", tid, tools)
			}
			// Reported times are kept: 12.650 to 12.700, within the call (12.500 to 12.900).
			if got := tools[0].span.StartTimestamp().AsTime().Format("05.000"); got != "12.650" {
				t.Errorf("%s: Read starts at %s", tid, got)
			}
			if tools[2].span.EndTimestamp() > agent.span.EndTimestamp() {
				t.Errorf("%s: a tool call ends after its target call", tid)
			}
		case "booking":
			var turns []spanInfo
			for _, s := range spans {
				if _, ok := s.attrs["agentv.turn"]; ok {
					turns = append(turns, s)
				}
			}
			if len(turns) != 2 || turns[1].attrs["gen_ai.input.messages"] != `[{"role":"user","parts":[{"type":"text","content":"Friday at 8."}]}]` ||
				turns[1].attrs["gen_ai.output.messages"] != `[{"role":"assistant","parts":[{"type":"text","content":"Booked for Friday."}]}]` {
				t.Errorf("%s: turns %v", tid, turns)
			}
			for _, s := range spans {
				if s.attrs["agentv.grader.name"] == "conversation" && s.span.Status().Code() != ptrace.StatusCodeError {
					t.Errorf("%s: the errored grader's status is %v", tid, s.span.Status().Code())
				}
				if _, ok := s.attrs["agentv.turn"]; ok && s.span.Status().Code() == ptrace.StatusCodeError {
					t.Errorf("%s: turn %v errored: the grader did", tid, s.attrs["agentv.turn"])
				}
			}
		}
	}
	want := map[string][]string{
		"refund-window": {"agentv.eval", "chat gpt", "agentv.grader rubric", "agentv.grader checks", "agentv.grader mentions-days", "agentv.grader polite"},
		"fix-bug":       {"agentv.eval", "invoke_agent codex"},
		"shipping-cost": {"agentv.eval", "agentv.trial", "chat gpt", "agentv.grader rubric", "agentv.trial", "chat gpt", "agentv.grader rubric"},
		"triage":        {"agentv.eval", "invoke_agent claude", "execute_tool Read", "execute_tool Bash", "execute_tool Bash", "agentv.grader ran-tests"},
		"booking":       {"agentv.eval", "chat gpt", "chat gpt", "agentv.grader turn-1", "agentv.grader turn-2", "agentv.grader conversation"},
	}
	for id, w := range want {
		if !slices.Equal(names[id], w) {
			t.Errorf("%s: spans %q, want %q", id, names[id], w)
		}
	}
}

// TestProtoDecodes reads the file as go.opentelemetry.io/proto/otlp's
// ExportTraceServiceRequest. OTLP JSON writes ids in hex where protobuf's JSON mapping
// wants base64, so the ids are mapped first, and each must be 16 or 8 bytes.
func TestProtoDecodes(t *testing.T) {
	t.Parallel()
	b := export(t, false)
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	mapped := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					raw, err := hex.DecodeString(s)
					if err != nil {
						t.Fatalf("%s %q is not hex: %v", k, s, err)
					}
					v[k] = base64.StdEncoding.EncodeToString(raw)
					mapped++
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	js, _ := json.Marshal(doc)
	var req collectortrace.ExportTraceServiceRequest
	if err := protojson.Unmarshal(js, &req); err != nil {
		t.Fatal(err)
	}
	spans, parents := 0, 0
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			if ss.Scope.GetName() != "agentv" || ss.Scope.GetVersion() != "1.2.3" {
				t.Errorf("scope %v", ss.Scope)
			}
			for _, s := range ss.Spans {
				spans++
				if len(s.TraceId) != 16 || len(s.SpanId) != 8 || len(s.ParentSpanId) != 0 && len(s.ParentSpanId) != 8 {
					t.Errorf("%s: id lengths %d %d %d", s.Name, len(s.TraceId), len(s.SpanId), len(s.ParentSpanId))
				}
				if len(s.ParentSpanId) > 0 {
					parents++
				}
				if s.StartTimeUnixNano == 0 || s.EndTimeUnixNano < s.StartTimeUnixNano {
					t.Errorf("%s: times %d..%d", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano)
				}
			}
		}
	}
	if spans != 27 || parents != 22 || mapped != spans*2+parents {
		t.Errorf("%d spans, %d with parents, %d ids mapped", spans, parents, mapped)
	}
}

// TestContentOnlyWhenCaptured: without the flag no text of the records' messages is in the
// file, nor an attribute that holds content.
func TestContentOnlyWhenCaptured(t *testing.T) {
	t.Parallel()
	texts := []string{"You can return items", "How long do I have", "You are a support agent", "The answer names 30 days",
		"Curt.", "Fix the failing test", "Shipping costs extra", "Answer in one sentence", "Book a table", "Booked for Friday",
		"No date confirmed", "States the 30-day window", "Forgot the date", "alert(1)", "go test ./...", "package foo"}
	keys := []string{attrOutputText, attrInputValue, attrOutputValue, attrInputMsgs, attrOutputMsgs, attrEvalExplain, attrGraderHits, attrGraderMisses,
		attrToolArgs, attrToolResult}
	without, with := string(export(t, false)), string(export(t, true))
	for _, s := range texts {
		if strings.Contains(without, s) {
			t.Errorf("without content, the file holds %q", s)
		}
	}
	for _, k := range keys {
		if strings.Contains(without, `"`+k+`"`) {
			t.Errorf("without content, the file has attribute %s", k)
		}
		if !strings.Contains(with, `"`+k+`"`) {
			t.Errorf("with content, the file lacks attribute %s", k)
		}
	}
	for _, s := range texts {
		if !strings.Contains(with, s) {
			t.Errorf("with content, the file lacks %q", s)
		}
	}
	// Errors are not content: a span says why it failed either way.
	if !strings.Contains(without, "timed out after 120s") {
		t.Error("without content, the error is missing")
	}
}

// TestIDs: one results file gives the same file twice; another run of the same cases gives
// other trace ids; a file listed twice (a merge) gives each case's records distinct ids.
func TestIDs(t *testing.T) {
	t.Parallel()
	a, b := export(t, false), export(t, false)
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of one results file differ")
	}
	src, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	rerun := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(rerun, bytes.Replace(src, []byte(`"timestamp":"2026-02-01T10:00:00.000Z"`), []byte(`"timestamp":"2026-02-02T10:00:00.000Z"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	ids := func(b []byte) []string {
		var u ptrace.JSONUnmarshaler
		td, err := u.UnmarshalTraces(b)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			spans := td.ResourceSpans().At(i).ScopeSpans().At(0).Spans()
			for j := 0; j < spans.Len(); j++ {
				out = append(out, spans.At(j).TraceID().String()+"/"+spans.At(j).SpanID().String())
			}
		}
		return out
	}
	first, second := ids(a), ids(export(t, false, rerun))
	for _, id := range second {
		if slices.Contains(first, id) {
			t.Errorf("a rerun reuses %s", id)
		}
	}
	twice := ids(export(t, false, records, records))
	seen := map[string]bool{}
	for _, id := range twice {
		if seen[id] {
			t.Errorf("a merge of the file with itself gives %s twice", id)
		}
		seen[id] = true
	}
}

// TestEmptyAndCapped: no case is an empty list; a long answer is capped as records cap it.
func TestEmptyAndCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte(`{"record":"run_start","format":1,"timestamp":"2026-02-01T10:00:00.000Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := string(export(t, true, empty)); got != `{"resourceSpans":[]}`+"\n" {
		t.Errorf("empty run: %q", got)
	}
	long := strings.Repeat("x", 3<<20)
	rec, _ := json.Marshal(map[string]any{"timestamp": "2026-02-01T10:00:01.000Z", "eval_id": "long", "dataset": "d", "score": 1,
		"candidate_answer": long, "target": "t", "verdict": "pass", "duration_ms": 5})
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, append(rec, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	b := export(t, true, big)
	if len(b) > 4<<20 || !bytes.Contains(b, []byte("truncated")) {
		t.Errorf("a 3 MiB answer made a %d-byte file", len(b))
	}
}

// TestBadResults: a malformed line is an error naming the file and line, and no file is left.
func TestBadResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"eval_id\":\"a\",\"timestamp\":\"2026-02-01T10:00:01.000Z\"}\n{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "otel.json")
	err := WriteFile(out, []string{bad}, Options{})
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl: line 2") {
		t.Errorf("error %v, want one naming bad.jsonl line 2", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("a failed export left a file")
	}
}
