package otlp

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/results"
)

// maxError is the most bytes of an error message a span status keeps: errors are not
// content, so they are always written, but a CLI target's stderr may be long.
const maxError = 4 << 10

// resource fills the resource and scope of one case's ResourceSpans.
func resource(rs ptrace.ResourceSpans, opt Options) {
	a := rs.Resource().Attributes()
	a.PutStr("service.name", "agentv")
	if opt.Version != "" {
		a.PutStr("service.version", opt.Version)
	}
	sc := rs.ScopeSpans().AppendEmpty().Scope()
	sc.SetName("agentv")
	if opt.Version != "" {
		sc.SetVersion(opt.Version)
	}
}

// builder makes the spans of one case.
type builder struct {
	opt   Options
	spans ptrace.SpanSlice
	trace pcommon.TraceID
	runID string // the run's start time, which names it
}

// window is the time a span covers. Records hold when a case finished and how long each
// part took, not when each part started: children are laid out one after another from their
// parent's start, in the order they ran, and never past their parent's end.
type window struct{ at, end time.Time }

func (w *window) take(ms int64) window {
	end := w.at.Add(time.Duration(max(ms, 0)) * time.Millisecond)
	if end.After(w.end) {
		end = w.end
	}
	got := window{w.at, end}
	w.at = end
	return got
}

func (b *builder) span(name, path string, parent pcommon.SpanID, kind ptrace.SpanKind, w window) ptrace.Span {
	s := b.spans.AppendEmpty()
	s.SetTraceID(b.trace)
	s.SetSpanID(spanID(b.trace, path))
	if !parent.IsEmpty() {
		s.SetParentSpanID(parent)
	}
	s.SetName(name)
	s.SetKind(kind)
	s.SetStartTimestamp(pcommon.NewTimestampFromTime(w.at))
	s.SetEndTimestamp(pcommon.NewTimestampFromTime(w.end))
	return s
}

// content sets a text attribute when content is captured, capped as records cap texts.
func (b *builder) content(a pcommon.Map, key, text string) {
	if b.opt.CaptureContent && text != "" {
		a.PutStr(key, textcap.Cap(text))
	}
}

func setError(s ptrace.Span, msg string) {
	s.Status().SetCode(ptrace.StatusCodeError)
	s.Status().SetMessage(textcap.CapAt(msg, maxError))
}

// record makes the root span of rec and its children.
func (b *builder) record(rec *results.Record) {
	end, ok := timeOf(rec.Timestamp)
	if !ok {
		end = time.Unix(0, 0).UTC()
	}
	root := window{end.Add(-time.Duration(max(rec.DurationMS, 0)) * time.Millisecond), end}
	s := b.span(spanCase, "case", pcommon.SpanID{}, ptrace.SpanKindInternal, root)
	b.caseAttrs(s.Attributes(), rec)
	if rec.Verdict == results.VerdictError || rec.Error != "" {
		msg := rec.Error
		if msg == "" {
			msg = "the case errored"
		}
		setError(s, msg)
	} else {
		s.Status().SetCode(ptrace.StatusCodeOk)
	}
	for _, e := range rec.EvaluatorResults { // AgentV 4.x's grader events
		ev := s.Events().AppendEmpty()
		ev.SetName(graderEventPrefix + e.Name)
		ev.SetTimestamp(pcommon.NewTimestampFromTime(end))
		a := ev.Attributes()
		a.PutDouble(attrGraderScore, e.Score)
		a.PutStr(attrGraderType, e.Type)
		if e.Verdict != "" {
			a.PutStr(attrGraderVerdict, e.Verdict)
		}
	}
	id := s.SpanID()
	w := root
	if len(rec.Trials) == 0 {
		b.run(rec, id, "", &w, attempt{answer: rec.CandidateAnswer, turns: rec.Turns, err: rec.Error, graders: rec.EvaluatorResults, whole: true})
		return
	}
	for i := range rec.Trials {
		t := &rec.Trials[i]
		path := "trial/" + strconv.Itoa(t.Trial)
		tw := w.take(t.DurationMS)
		ts := b.span(spanTrial, path, id, ptrace.SpanKindInternal, tw)
		a := ts.Attributes()
		a.PutInt(attrTrial, int64(t.Trial))
		a.PutDouble(attrScore, t.Score)
		a.PutStr(attrVerdict, string(t.Verdict))
		if t.CostUSD != nil {
			a.PutDouble(attrCostUSD, *t.CostUSD)
		}
		if t.Verdict == results.VerdictError || t.Error != "" {
			setError(ts, cmp.Or(t.Error, "the trial errored"))
		}
		b.content(a, attrOutputValue, t.CandidateAnswer)
		b.run(rec, ts.SpanID(), path+"/", &tw, attempt{answer: t.CandidateAnswer, turns: t.Turns, err: t.Error,
			graders: t.EvaluatorResults, cost: t.CostUSD})
	}
}

// attempt is one run of a case: the case itself, or one of its trials.
type attempt struct {
	answer  string
	turns   []results.Turn
	err     string
	graders []results.EvaluatorResult
	// whole is set for the case itself, whose trace summary (tokens, cost) and output
	// messages (tool calls) belong to its one invocation.
	whole bool
	cost  *float64 // a trial's cost, held by its invocation (its first turn's)
}

// run makes the spans of one attempt in w: its target invocations (one, or one a turn),
// then its graders.
func (b *builder) run(rec *results.Record, parent pcommon.SpanID, path string, w *window, at attempt) {
	graderMS := int64(0)
	graderErr := false
	for _, g := range at.graders {
		graderMS += max(g.DurationMS, 0)
		graderErr = graderErr || g.Error != ""
	}
	op, kind := opChat, "LLM"
	if rec.AgentProviderRequest != nil {
		op, kind = opInvokeAgent, "AGENT"
	}
	name := op + " " + rec.Target
	if len(at.turns) > 0 {
		for i, t := range at.turns {
			if t.Verdict == results.TurnNotSent {
				continue // never asked: no invocation to show
			}
			tw := w.take(t.DurationMS)
			s := b.span(name, path+"turn/"+strconv.Itoa(t.Turn), parent, ptrace.SpanKindClient, tw)
			a := s.Attributes()
			b.invocationAttrs(a, rec, op, kind)
			a.PutInt(attrTurn, int64(t.Turn))
			a.PutDouble(attrScore, t.Score)
			a.PutStr(attrVerdict, t.Verdict)
			if t.Verdict == string(results.VerdictError) || t.Error != "" {
				setError(s, cmp.Or(t.Error, "the turn errored"))
			}
			if i == 0 && at.cost != nil {
				a.PutDouble(attrCost, *at.cost)
			}
			b.messages(a, []message{{"user", t.Input}}, t.Answer)
		}
	} else {
		ms := w.end.Sub(w.at).Milliseconds() - graderMS
		if ts := rec.TraceSummary; at.whole && ts != nil && ts.DurationMS != nil && int64(*ts.DurationMS) < ms {
			ms = int64(*ts.DurationMS)
		}
		tw := w.take(ms)
		s := b.span(name, path+"target", parent, ptrace.SpanKindClient, tw)
		a := s.Attributes()
		b.invocationAttrs(a, rec, op, kind)
		if at.cost != nil {
			a.PutDouble(attrCost, *at.cost)
		}
		if at.whole {
			a.PutInt(attrAttempts, int64(rec.Attempts))
			if ts := rec.TraceSummary; ts != nil {
				if u := ts.TokenUsage; u != nil {
					a.PutInt(attrInputTokens, u.Input)
					a.PutInt(attrOutputTokens, u.Output)
					a.PutInt(attrPromptTokens, u.Input)
					a.PutInt(attrCompTokens, u.Output)
					a.PutInt(attrTotalTokens, u.Input+u.Output)
					if u.Cached != nil {
						a.PutInt(attrCachedTokens, *u.Cached)
					}
				}
				if ts.CostUSD != nil {
					a.PutDouble(attrCost, *ts.CostUSD)
				}
			}
		}
		// An error with no grader error is the target's: it gave no answer.
		if at.err != "" && !graderErr {
			setError(s, at.err)
		}
		// The conventions' messages only: the root span has the case's input and answer as
		// input.value and output.value, so a long answer is not held four times.
		b.messages(a, inputOf(rec), at.answer)
		if at.whole {
			b.tools(rec, s.SpanID(), path+"target/", tw)
		}
	}
	for i := range at.graders {
		b.grader(&at.graders[i], parent, path+"grader/"+strconv.Itoa(i), w)
	}
}

// grader makes the span of one grader's verdict and, for a composite, its parts.
func (b *builder) grader(g *results.EvaluatorResult, parent pcommon.SpanID, path string, w *window) {
	gw := w.take(g.DurationMS)
	s := b.span(spanGrader+" "+g.Name, path, parent, ptrace.SpanKindInternal, gw)
	a := s.Attributes()
	a.PutStr(attrKind, "EVALUATOR")
	a.PutStr(attrGraderName, g.Name)
	a.PutStr(attrGraderType, g.Type)
	a.PutDouble(attrGraderScore, g.Score)
	a.PutDouble(attrGraderWeight, g.Weight)
	if g.Verdict != "" {
		a.PutStr(attrGraderVerdict, g.Verdict)
		a.PutStr(attrEvalLabel, g.Verdict)
	}
	if g.Attempts > 0 {
		a.PutInt(attrGraderTries, int64(g.Attempts))
	}
	a.PutStr(attrEvalName, g.Name)
	a.PutDouble(attrEvalScore, g.Score)
	if g.Error != "" {
		a.PutStr(attrErrorType, "grader_error")
		setError(s, g.Error)
	}
	b.content(a, attrEvalExplain, g.Reasoning)
	if b.opt.CaptureContent {
		putTexts(a, attrGraderHits, g.Hits)
		putTexts(a, attrGraderMisses, g.Misses)
	}
	for i := range g.EvaluatorResults {
		b.grader(&g.EvaluatorResults[i], s.SpanID(), path+"/"+strconv.Itoa(i), &gw)
	}
}

func (b *builder) caseAttrs(a pcommon.Map, rec *results.Record) {
	a.PutStr(attrOperation, opEvaluate)
	a.PutStr(attrSystem, "agentv")
	a.PutStr(attrKind, "CHAIN")
	a.PutStr(attrTestID, rec.EvalID)
	a.PutStr(attrSuite, rec.Dataset)
	a.PutStr(attrTarget, rec.Target)
	a.PutDouble(attrScore, rec.Score)
	a.PutStr(attrVerdict, string(rec.Verdict))
	if b.runID != "" {
		a.PutStr(attrRunID, b.runID)
		a.PutStr(attrSessionID, b.runID)
	}
	if rec.File != "" {
		a.PutStr(attrFile, rec.File)
		a.PutInt(attrLine, int64(rec.Line))
	}
	a.PutInt(attrAttempts, int64(rec.Attempts))
	a.PutInt(attrDurationMS, rec.DurationMS)
	if rec.CaseThreshold != nil {
		a.PutDouble(attrThreshold, *rec.CaseThreshold)
	}
	if rec.ConversationID != "" {
		a.PutStr(attrConversationID, rec.ConversationID)
	}
	if n := len(rec.Trials); n > 0 {
		a.PutInt(attrTrials, int64(n))
		a.PutInt(attrTrialsPassed, int64(rec.TrialsPassed()))
		if rec.TrialStrategy != "" {
			a.PutStr(attrTrialStrategy, rec.TrialStrategy)
		}
	}
	if rec.Flaky {
		a.PutBool(attrFlaky, true)
	}
	if rec.BaselineScore != nil {
		a.PutDouble(attrBaselineScore, *rec.BaselineScore)
	}
	if c := rec.Cache; c != nil && c.Hits > 0 {
		a.PutInt(attrCacheHits, int64(c.Hits))
	}
	if ts := rec.TraceSummary; ts != nil {
		if ts.CostUSD != nil {
			a.PutDouble(attrCostUSD, *ts.CostUSD)
		}
		if u := ts.TokenUsage; u != nil {
			a.PutInt(attrTokenInput, u.Input)
			a.PutInt(attrTokenOutput, u.Output)
			if u.Cached != nil {
				a.PutInt(attrTokenCached, *u.Cached)
			}
		}
		if ts.EventCount > 0 {
			a.PutInt(attrEventCount, int64(ts.EventCount))
		}
		if len(ts.ToolNames) > 0 {
			a.PutStr(attrToolNames, strings.Join(ts.ToolNames, ","))
		}
		if ts.ErrorCount > 0 {
			a.PutInt(attrErrorCount, int64(ts.ErrorCount))
		}
	}
	b.content(a, attrOutputText, rec.CandidateAnswer)
	b.content(a, attrOutputValue, rec.CandidateAnswer)
	if b.opt.CaptureContent {
		if in := inputOf(rec); len(in) > 0 {
			if js, err := json.Marshal(in); err == nil {
				a.PutStr(attrInputValue, textcap.Cap(string(js)))
				a.PutStr(attrInputMIME, "application/json")
			}
		}
	}
}

func (b *builder) invocationAttrs(a pcommon.Map, rec *results.Record, op, kind string) {
	a.PutStr(attrOperation, op)
	a.PutStr(attrKind, kind)
	a.PutStr(attrTarget, rec.Target)
	if op == opInvokeAgent {
		a.PutStr(attrAgentName, rec.Target)
	}
}

// putTexts sets a list of texts, each capped.
func putTexts(a pcommon.Map, key string, list []string) {
	if len(list) == 0 {
		return
	}
	s := a.PutEmptySlice(key)
	for _, v := range list {
		s.AppendEmpty().SetStr(textcap.Cap(v))
	}
}
