package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"slices"

	"strings"
	"time"

	"github.com/agentv/action/cache"
	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/proc"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/prompt"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
	"github.com/agentv/action/workspace"
)

// HealthcheckError is why a case did not run: its target's healthcheck failed (the run is invalid).
type HealthcheckError struct{ Err error }

func (e *HealthcheckError) Error() string { return e.Err.Error() }
func (e *HealthcheckError) Unwrap() error { return e.Err }

func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, proc.ErrTimeout)
}

// runCase runs a job, once or as its trials, and emits its record.
func (r *Runner) runCase(ctx context.Context, p providers.Provider, j *plan.Job, pre *providers.Response) {
	defer func() { j.Case = nil }() // memory must not hold every case of a large suite
	if tr := r.trialsOf(j.Case); tr != nil {
		r.emit(j, r.runTrials(ctx, p, j, pre, tr))
		return
	}
	r.emit(j, r.runOnce(ctx, p, j, pre))
}

// runOnce runs a case (or one trial of it): the before_each hook, a single question or a
// conversation, and its record.
func (r *Runner) runOnce(ctx context.Context, p providers.Provider, j *plan.Job, pre *providers.Response) (rec *results.Record) {
	start := time.Now()
	// A bug in a provider or evaluator must cost one case, not the run.
	defer func() {
		if v := recover(); v != nil {
			rec = r.errorRecord(j, nil, 1, time.Since(start), fmt.Errorf("internal error while running the case: %v", v))
		}
	}()
	ctx, use := cache.Track(ctx)
	if pre != nil {
		cache.Batched(ctx, pre)
	} else if err := r.hook(ctx, j, beforeEach); err != nil {
		return r.errorRecord(j, nil, 0, time.Since(start), err)
	}
	threshold, own, eopts := r.thresholdOf(j.Case)
	var s *scored
	if j.Case.Conversation != nil {
		s = r.runConversation(ctx, p, j, threshold, eopts)
	} else {
		s = r.answer(ctx, p, j, pre, eopts)
	}
	if s.err != nil {
		return r.errorRecord(j, s.req, s.attempts, time.Since(start), s.err)
	}
	rec = r.baseRecord(j, p.Target())
	if s.hookErr != nil {
		rec.Warnings = append(slices.Clip(rec.Warnings), suite.Diagnostic{File: j.File, Line: j.Case.Line,
			Severity: suite.SeverityWarning, Kind: "hook", CaseID: j.Case.ID, Message: s.hookErr.Error()})
	}
	rec.Score = s.out.Score
	rec.Hits = nonNil(s.out.Hits)
	rec.Misses = nonNil(s.out.Misses)
	rec.CandidateAnswer = r.capText(s.candidate)
	rec.Reasoning = s.out.Reasoning
	if s.req != nil {
		r.setRequest(rec, s.req, providers.ModeOf(p.Target().Kind))
	}
	rec.EvaluatorProviderRequest = s.out.DefaultJudgeRequest
	rec.EvaluatorResults = s.out.Results
	rec.TraceSummary = s.trace
	rec.Output = s.output
	if len(s.metadata) > 0 {
		if b, err := jsonx.Marshal(s.metadata); err == nil {
			rec.ProviderMetadata = b
		}
	}
	rec.Turns = s.turns
	rec.Attempts = s.attempts
	rec.Cache = use.Record()
	rec.DurationMS = time.Since(start).Milliseconds()
	rec.Error = s.errMsg
	settle(rec, threshold, own, s.errMsg != "")
	if p := s.out.Passed; p != nil && rec.Verdict != results.VerdictError {
		// The file's rules make the verdict the graders' (promptfoo: every assertion passed).
		rec.Verdict = results.VerdictFail
		if *p {
			rec.Verdict = results.VerdictPass
		}
	}
	return rec
}

// scored is a case's run as its record shows it (a conversation's turns aggregated).
type scored struct {
	req       *providers.Request
	attempts  int
	err       error // the target gave no answer: the record is an error record
	candidate string
	trace     *results.TraceSummary
	metadata  map[string]any
	out       *evaluators.Outcome
	errMsg    string // the record's error, "" when it has none
	hookErr   error  // a failed after_each, a warning on the record
	turns     []results.Turn
	output    json.RawMessage // the target's output messages when they say more than the answer
}

// ask sends case c to the target, the request built as for any case (a conversation's turn
// is the case as that turn sends it, turn its number), and returns the answer and the
// attempts made. pre, a batch's answer, stands for the call.
func (r *Runner) ask(ctx context.Context, p providers.Provider, c *suite.Case, workspace string, turn int,
	pre *providers.Response) (req *providers.Request, resp *providers.Response, attempts int, err error) {
	mode := providers.ModeOf(p.Target().Kind)
	req = prompt.Build(c, mode)
	req.Turn, req.Workspace = turn, workspace
	if turn > 0 && mode == providers.ModeAgent {
		// Agent targets (cli, claude, codex, vscode) are sent the turn's input alone, as
		// AgentV 4.42.4 sends it (orchestrator.ts, runConversationMode: `question: userContent`;
		// they read no chat history): an agent keeps its own context or starts afresh.
		req.Question = messageText(c.Input[len(c.Input)-1])
	}
	if pre != nil {
		return req, pre, 1, nil
	}
	resp, attempts, err = r.invoke(ctx, p, req)
	return req, resp, attempts, err
}

// answer asks a case that is not a conversation and scores the answer with its evaluators.
func (r *Runner) answer(ctx context.Context, p providers.Provider, j *plan.Job, pre *providers.Response, eopts *evaluators.Options) *scored {
	s := &scored{}
	var resp *providers.Response
	if s.req, resp, s.attempts, s.err = r.ask(ctx, p, j.Case, j.Workspace, 0, pre); s.err != nil {
		return s
	}
	// A failing after_each is only a warning, as in 4.42.4, but one every report shows on the
	// case (4.42.4 prints it always), not only a --verbose line.
	s.hookErr = r.afterEach(ctx, j, false)
	s.candidate, s.trace, s.metadata = Candidate(resp), Trace(resp), resp.Metadata
	s.output = results.OutputOf(resp.OutputMessages)
	s.out = evaluators.Evaluate(ctx, &evaluators.Input{
		Case: j.Case, Target: p.Target(), Request: s.req, Response: resp, Candidate: s.candidate, Trace: s.trace,
		FileChanges: workspace.FileChanges(ctx, j.Workspace),
	}, eopts)
	if err := r.afterEach(ctx, j, true); err != nil {
		s.hookErr = err
	}
	s.errMsg = resp.Error
	if s.errMsg == "" && s.out.Errored {
		s.errMsg = evaluatorErrors(s.out.Results)
	}
	return s
}

// settle sets a scored case's verdict, and its threshold when the case set its own.
func settle(rec *results.Record, threshold float64, own, errored bool) {
	if own {
		rec.CaseThreshold = &threshold
	}
	rec.Verdict = verdict(rec.Score, threshold, errored)
}

// verdict is the verdict of a score (a case's, a turn's, a transcript's) against threshold.
func verdict(score, threshold float64, errored bool) results.Verdict {
	switch {
	case errored:
		return results.VerdictError
	case score >= threshold:
		return results.VerdictPass
	}
	return results.VerdictFail
}

// thresholdOf returns the score case c passes at, whether its eval file set it, and the
// evaluator options with that Threshold (a `required` evaluator's default minimum).
func (r *Runner) thresholdOf(c *suite.Case) (float64, bool, *evaluators.Options) {
	threshold, own := caseThreshold(c, r.opts.Gate.CaseThreshold)
	if r.opts.ThresholdWins {
		threshold, own = r.opts.Gate.CaseThreshold, false
	}
	eopts := &r.opts.Evaluators
	if threshold != r.opts.Gate.CaseThreshold {
		o := *eopts
		o.Threshold = threshold
		eopts = &o
	}
	return threshold, own, eopts
}

// caseThreshold is the case's `execution.threshold`, else its suite's, else the run's.
func caseThreshold(c *suite.Case, run float64) (threshold float64, own bool) {
	switch {
	case c == nil:
	case c.Threshold != nil:
		return *c.Threshold, true
	case c.Suite != nil && c.Suite.Threshold != nil:
		return *c.Suite.Threshold, true
	}
	return run, false
}

// answerUsed tells the response cache that every answer may be stored (it leaves out errors).
func answerUsed(*providers.Response) bool { return true }

// invoke calls the provider with a timeout per attempt, retrying timeouts MaxRetries times,
// and returns the attempts made.
func (r *Runner) invoke(ctx context.Context, p providers.Provider, req *providers.Request) (*providers.Response, int, error) {
	var lastErr error
	for attempt := 0; attempt <= r.opts.MaxRetries; attempt++ {
		req.Attempt = attempt
		actx, cancel := context.WithTimeout(cache.WithAccept(providers.WithEvalID(ctx, req.EvalID), answerUsed), r.opts.Timeout)
		resp, err := p.Invoke(actx, req)
		timedOut := actx.Err() == context.DeadlineExceeded
		cancel()
		if err == nil && resp != nil {
			return resp, attempt + 1, nil
		}
		if err == nil {
			err = errors.New("provider returned no response")
		}
		if ctx.Err() != nil {
			return nil, attempt + 1, fmt.Errorf("cancelled: %w", err)
		}
		if !timedOut && !isTimeout(err) {
			return nil, attempt + 1, err
		}
		if timedOut && !isTimeout(err) {
			err = fmt.Errorf("timed out after %s: %w", r.opts.Timeout, err)
		}
		lastErr = err
		if attempt < r.opts.MaxRetries {
			r.opts.Logf("%s: attempt %d timed out, retrying", req.EvalID, attempt+1)
		}
	}
	n := r.opts.MaxRetries + 1
	what := "every one of %d invocations timed out"
	if n == 1 {
		what = "the invocation timed out (%d attempt, no retries left)"
	}
	return nil, n, fmt.Errorf(what+": %w", n, lastErr)
}

// runBatch sends one eval file's cases in one call and returns each case's scoring work; when
// the call fails, each case falls back to its own.
func (r *Runner) runBatch(ctx context.Context, l *lane, jobs []*plan.Job) []func() {
	bp := l.provider.(providers.BatchProvider)
	mode := providers.ModeOf(l.provider.Target().Kind)
	reqs := make([]*providers.Request, len(jobs))
	for i, j := range jobs {
		reqs[i] = prompt.Build(j.Case, mode)
	}
	bctx, cancel := context.WithTimeout(cache.WithAccept(ctx, answerUsed), r.opts.Timeout*time.Duration(max(1, len(jobs)/max(1, l.limit))))
	resps, err := bp.InvokeBatch(bctx, reqs)
	cancel()
	if err == nil && len(resps) != len(jobs) {
		err = fmt.Errorf("batch returned %d answers for %d cases", len(resps), len(jobs))
	}
	out := make([]func(), len(jobs))
	for i, j := range jobs {
		if err != nil {
			// Each case on its own asks Stop again, as 4.42.4's per-case dispatch does.
			out[i] = func() { r.start(ctx, l.provider, j) }
			continue
		}
		resp := resps[i]
		if resp == nil {
			resp = &providers.Response{Error: "batch returned no answer for this case"}
		}
		out[i] = func() { r.runCase(ctx, l.provider, j, resp) }
	}
	if err != nil {
		r.opts.Logf("target %q: batch call failed, running %d cases one by one: %v", l.provider.Target().Name, len(jobs), r.opts.Redactor.String(err.Error()))
	}
	return out
}

func (r *Runner) baseRecord(j *plan.Job, t *targets.Target) *results.Record {
	c := j.Case
	rec := &results.Record{
		EvalID: c.ID, Dataset: c.Dataset(), ConversationID: c.ConversationID,
		File: j.File, Line: c.Line, Warnings: j.Warnings,
		EvaluatorResults: []results.EvaluatorResult{},
		Hits:             []string{}, Misses: []string{},
	}
	if t != nil {
		rec.Target = t.Name
	}
	return rec
}

// errorRecord is the record of a case that got no answer (AgentV's error shape).
func (r *Runner) errorRecord(j *plan.Job, req *providers.Request, attempts int, d time.Duration, err error) *results.Record {
	var t *targets.Target
	if j.Provider != nil {
		t = j.Provider.Target()
	}
	rec := r.baseRecord(j, t)
	if t == nil {
		rec.Target = j.Target // the target that could not be made
	}
	msg := err.Error()
	rec.Error = msg
	rec.Misses = []string{"Error: " + msg}
	rec.CandidateAnswer = "Error occurred: " + msg
	rec.Verdict = results.VerdictError
	rec.Attempts = attempts
	rec.DurationMS = d.Milliseconds()
	if req != nil && t != nil {
		r.setRequest(rec, req, providers.ModeOf(t.Kind))
	}
	return rec
}

// capText caps s (textcap.Max) for a record, redacted first: a cut must not keep half a secret
// the record's redaction would no longer recognise.
func (r *Runner) capText(s string) string {
	if len(s) <= textcap.Max {
		return s
	}
	return textcap.Cap(r.opts.Redactor.String(s))
}

// setRequest records what the target was sent, its long texts capped.
func (r *Runner) setRequest(rec *results.Record, req *providers.Request, mode providers.Mode) {
	longChat := slices.ContainsFunc(req.Chat, func(m providers.ChatMessage) bool { return len(m.Content) > textcap.Max })
	if len(req.Question) > textcap.Max || len(req.Guidelines) > textcap.Max || longChat {
		cp := *req
		cp.Question, cp.Guidelines = r.capText(req.Question), r.capText(req.Guidelines)
		if longChat {
			cp.Chat = make([]providers.ChatMessage, len(req.Chat))
			for i, m := range req.Chat {
				m.Content = r.capText(m.Content)
				cp.Chat[i] = m
			}
		}
		req = &cp
	}
	raw := prompt.Record(req, mode)
	if mode == providers.ModeAgent {
		rec.AgentProviderRequest = raw
	} else {
		rec.LMProviderRequest = raw
	}
}

func evaluatorErrors(rs []results.EvaluatorResult) string {
	var parts []string
	for _, e := range rs {
		if e.Error != "" {
			parts = append(parts, fmt.Sprintf("evaluator %q could not score: %s", e.Name, e.Error))
		}
	}
	return strings.Join(parts, "; ")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// emit redacts a record, stamps it and hands it to the handler.
func (r *Runner) emit(j *plan.Job, rec *results.Record) {
	rec.Timestamp = r.timestamp()
	redactRecord(rec, r.opts.Redactor)
	r.mu.Lock()
	if r.handler != nil {
		r.handler(rec)
	}
	r.mu.Unlock()
	if n, ok := r.deps.LoadAndDelete(j); ok {
		n.(*depNode).finish(rec.Verdict == results.VerdictError)
	}
}

// timestamp is the record time in milliseconds, its text reused within the millisecond.
func (r *Runner) timestamp() string {
	now := r.opts.Now().UTC()
	ms := now.UnixMilli()
	if last := r.lastStamp.Load(); last != nil && last.ms == ms {
		return last.text
	}
	st := &stamp{ms: ms, text: now.Format("2006-01-02T15:04:05.000Z")}
	r.lastStamp.Store(st)
	return st.text
}

type stamp struct {
	ms   int64
	text string
}

// Candidate returns the last assistant output message's content (structured: compact JSON),
// else the response text.
func Candidate(resp *providers.Response) string {
	for i := len(resp.OutputMessages) - 1; i >= 0; i-- {
		m := resp.OutputMessages[i]
		if m.Role != suite.RoleAssistant {
			continue
		}
		switch m.Content.Kind {
		case suite.ContentText:
			return m.Content.Text
		case suite.ContentStructured:
			return string(m.Content.Structured)
		case suite.ContentSegments:
			var b strings.Builder
			for _, s := range m.Content.Segments {
				if s.Type == "text" {
					if b.Len() > 0 {
						b.WriteByte('\n')
					}
					b.WriteString(s.Value)
				}
			}
			return b.String()
		}
	}
	return resp.Text
}

// Trace summarises a response's tool calls, usage, cost and duration; nil when it has none.
func Trace(resp *providers.Response) *results.TraceSummary {
	if len(resp.OutputMessages) == 0 && resp.Usage == nil && resp.CostUSD == nil && resp.DurationMS == nil {
		return nil
	}
	// Empty, not nil: consumers iterate [] and {}.
	ts := &results.TraceSummary{ToolNames: []string{}, ToolCallsByName: map[string]int{}}
	for _, m := range resp.OutputMessages {
		if len(m.ToolCalls) == 0 {
			continue
		}
		var calls []struct {
			Tool string `json:"tool"`
			Name string `json:"name"`
		}
		if json.Unmarshal(m.ToolCalls, &calls) != nil {
			continue
		}
		for _, c := range calls {
			name := cmp.Or(c.Tool, c.Name)
			if name == "" {
				continue
			}
			ts.EventCount++
			ts.ToolCallsByName[name]++
		}
	}
	for name := range ts.ToolCallsByName {
		ts.ToolNames = append(ts.ToolNames, name)
	}
	slices.Sort(ts.ToolNames)
	if u := resp.Usage; u != nil {
		ts.TokenUsage = &results.TokenUsage{Input: u.Input, Output: u.Output, Cached: u.Cached}
	}
	ts.CostUSD = resp.CostUSD
	ts.DurationMS = resp.DurationMS
	return ts
}
