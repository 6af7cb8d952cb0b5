package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"strconv"
	"strings"
	"time"

	"github.com/agentv/action/evaluators"
	"github.com/agentv/action/plan"
	"github.com/agentv/action/prompt"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
)

// Types of the evaluator_results entries of a conversation test, unless its file's front-end
// names another (suite.Conversation.EntryType).
const (
	TypeTurn         = "turn"         // one turn's evaluators, named turn-1, turn-2, ...
	TypeConversation = "conversation" // the test's own evaluators on the whole transcript
	// verdictSkipped is the entry verdict of a turn that was not sent: 4.42.4's "skip"
	// (orchestrator.ts, on_turn_failure: stop).
	verdictSkipped = results.BandSkip
)

// conversationRun is the state of one conversation test while its turns run.
type conversationRun struct {
	r    *Runner
	p    providers.Provider
	c    *suite.Case
	mode providers.Mode
	// workspace is the suite's workspace: every turn runs there (4.42.4 passes it to each
	// turn, orchestrator.ts runConversationMode).
	workspace string
	threshold float64 // the score the case and each of its turns pass at
	eopts     *evaluators.Options

	history []suite.Message // the opening, then each turn's input and answer
	outputs []suite.Message // every turn's output messages, in order
	traces  []*results.TraceSummary
	entries []results.EvaluatorResult // one a turn, then the transcript's
	// turnType and wholeType type the turns' entries and the transcript's; unweighted leaves
	// their weight out of the results (suite.Conversation.Unweighted).
	turnType, wholeType string
	unweighted          bool
	turns               []results.Turn
	last                scored // the last request and answer, the attempts of every turn
}

// runConversation runs a conversation test: each turn is asked with the conversation so far and
// scored by the turn's evaluators, then the test's own evaluators score the transcript. The
// case score aggregates those scores (mean, min or max). A turn the target does not answer
// scores 0 and makes the case an error; with on_turn_failure: stop, a failed turn ends the
// conversation and the later turns are recorded as not sent, scoring 0.
func (r *Runner) runConversation(ctx context.Context, p providers.Provider, j *plan.Job, threshold float64, eopts *evaluators.Options) *scored {
	c := j.Case
	conv := c.Conversation
	cr := &conversationRun{r: r, p: p, c: c, mode: providers.ModeOf(p.Target().Kind), workspace: j.Workspace, history: slices.Clone(c.Input),
		threshold: threshold, eopts: eopts, turnType: cmp.Or(conv.EntryType, TypeTurn), wholeType: cmp.Or(conv.EntryType, TypeConversation),
		unweighted: conv.Unweighted}
	stoppedAt := 0
	for i, turn := range conv.Turns {
		if stoppedAt > 0 {
			cr.notSent(i+1, turn, stoppedAt)
			continue
		}
		if failed := cr.turn(ctx, i+1, turn); failed && conv.OnTurnFailure == suite.OnTurnFailureStop {
			stoppedAt = i + 1
		}
	}
	if len(c.Evaluators) > 0 {
		cr.transcript(ctx)
	}

	// The entries' hits, misses, reasoning and errors go to the record named by the entry, so a
	// report's one-line reason says which turn failed.
	s := &cr.last
	s.out = &evaluators.Outcome{Results: cr.entries}
	scores := make([]float64, len(cr.entries))
	var reasons, errs []string
	for i, e := range cr.entries {
		scores[i] = e.Score
		for _, h := range e.Hits {
			s.out.Hits = append(s.out.Hits, e.Name+": "+h)
		}
		for _, m := range e.Misses {
			s.out.Misses = append(s.out.Misses, e.Name+": "+m)
		}
		if t := strings.TrimSpace(e.Reasoning); t != "" {
			reasons = append(reasons, e.Name+": "+t)
		}
		if e.Error != "" {
			errs = append(errs, e.Name+": "+e.Error)
		}
	}
	s.out.Score = aggregateTurns(scores, conv.Aggregation)
	s.out.Reasoning = strings.Join(reasons, " | ")
	s.errMsg = strings.Join(errs, "; ")
	s.trace = mergeTraces(cr.traces)
	s.turns = cr.turns
	s.output = results.OutputOf(cr.history) // the whole conversation, as 4.x's output
	return s
}

// turn asks one turn and scores its answer; failed: no answer, an evaluator that could not
// score, or a score below the case threshold.
func (cr *conversationRun) turn(ctx context.Context, num int, turn *suite.Turn) (failed bool) {
	r, c, conv := cr.r, cr.c, cr.c.Conversation
	name := turnName(num)
	began := time.Now()
	cr.history = append(cr.history, turn.Input)
	sent := *c
	sent.ID = c.ID + "/" + name
	sent.Input = window(cr.history, conv.WindowSize)
	sent.Conversation = nil
	req, resp, n, err := r.ask(ctx, cr.p, &sent, cr.workspace, num, nil)
	cr.last.req = req
	cr.last.attempts += n
	if err == nil && resp.Error != "" {
		err = errors.New(resp.Error)
	}
	rt := results.Turn{Turn: num, Input: r.capText(turn.Input.Content.Text)}
	if err != nil {
		msg := "the target gave no answer: " + err.Error()
		e := results.EvaluatorResult{Name: name, Type: cr.turnType, Weight: 1, NoWeight: cr.unweighted, Verdict: string(results.VerdictError),
			Hits: []string{}, Misses: []string{msg}, Error: msg, DurationMS: time.Since(began).Milliseconds()}
		cr.entries = append(cr.entries, e)
		rt.Verdict, rt.Error, rt.DurationMS = e.Verdict, msg, e.DurationMS
		cr.turns = append(cr.turns, rt)
		return true
	}
	answer := Candidate(resp)
	trace := Trace(resp)
	cr.last.candidate = answer
	cr.traces = append(cr.traces, trace)
	cr.outputs = append(cr.outputs, resp.OutputMessages...)
	cr.history = append(cr.history, suite.Message{Role: suite.RoleAssistant, Content: suite.Content{Kind: suite.ContentText, Text: answer}})
	rt.Answer = r.capText(answer)

	var graded *suite.Case
	// A turn with neither evaluators nor an expected answer has nothing to check: it scores 1.
	if len(turn.Evaluators) > 0 || len(turn.Expected) > 0 {
		g := sent
		g.Input = window(cr.history, conv.WindowSize)
		g.Question = transcriptText(g.Input)
		g.Expected, g.ReferenceAnswer, g.HasReference = turn.Expected, turn.ReferenceAnswer, turn.HasReference
		g.Evaluators = turn.Evaluators
		graded = &g
	}
	e := cr.grade(ctx, name, cr.turnType, graded, req, resp, answer, trace, began)
	rt.Score, rt.Verdict, rt.Error, rt.DurationMS = e.Score, e.Verdict, e.Error, e.DurationMS
	cr.turns = append(cr.turns, rt)
	return e.Verdict != string(results.VerdictPass)
}

// notSent records a turn left out because turn stoppedAt failed with on_turn_failure: stop.
func (cr *conversationRun) notSent(num int, turn *suite.Turn, stoppedAt int) {
	why := fmt.Sprintf("not sent: turn %d failed and on_turn_failure is stop", stoppedAt)
	cr.entries = append(cr.entries, results.EvaluatorResult{Name: turnName(num), Type: cr.turnType, Weight: 1, NoWeight: cr.unweighted,
		Verdict: verdictSkipped, Hits: []string{}, Misses: []string{why}})
	cr.turns = append(cr.turns, results.Turn{Turn: num, Input: cr.r.capText(turn.Input.Content.Text), Verdict: results.TurnNotSent})
}

// transcript scores the conversation with the test's own evaluators, the transcript ("role:
// content" blocks) as the candidate, as AgentV 4.x grades it.
func (cr *conversationRun) transcript(ctx context.Context) {
	c := cr.c
	began := time.Now()
	text := transcriptText(cr.history)
	whole := *c
	whole.ID = c.ID + "/" + TypeConversation
	whole.Input = cr.history
	whole.Question = text
	whole.Expected, whole.ReferenceAnswer, whole.HasReference = nil, "", false
	whole.Conversation = nil
	resp := &providers.Response{Text: text, OutputMessages: cr.outputs}
	req := prompt.Build(&whole, cr.mode)
	req.Workspace = cr.workspace
	cr.grade(ctx, TypeConversation, cr.wholeType, &whole, req, resp, text, mergeTraces(cr.traces), began)
}

// grade scores a turn's answer (or the transcript) as case c and appends its entry; a nil c
// has nothing to check and scores 1.
func (cr *conversationRun) grade(ctx context.Context, name, typ string, c *suite.Case, req *providers.Request,
	resp *providers.Response, candidate string, trace *results.TraceSummary, began time.Time) results.EvaluatorResult {
	e := results.EvaluatorResult{Name: name, Type: typ, Score: 1, Weight: 1, NoWeight: cr.unweighted, Hits: []string{}, Misses: []string{}}
	errored := false
	if c != nil {
		out := evaluators.Evaluate(ctx, &evaluators.Input{
			Case: c, Target: cr.p.Target(), Request: req, Response: resp, Candidate: candidate, Trace: trace,
		}, cr.eopts)
		// The default judge's prompt stays with its turn: the record's own is the case's.
		if out.DefaultJudgeRequest != nil && len(out.Results) == 1 && out.Results[0].EvaluatorProviderRequest == nil {
			out.Results[0].EvaluatorProviderRequest = out.DefaultJudgeRequest
		}
		e.Score, e.Reasoning, e.EvaluatorResults = out.Score, out.Reasoning, out.Results
		e.Hits, e.Misses = nonNil(out.Hits), nonNil(out.Misses)
		if errored = out.Errored; errored {
			e.Error = evaluatorErrors(out.Results)
		}
	}
	e.Verdict = string(verdict(e.Score, cr.threshold, errored))
	e.DurationMS = time.Since(began).Milliseconds()
	cr.entries = append(cr.entries, e)
	return e
}

func turnName(num int) string { return "turn-" + strconv.Itoa(num) }

// aggregateTurns combines the turns' (and transcript's) scores; none at all scores 1.
func aggregateTurns(scores []float64, how string) float64 {
	if len(scores) == 0 {
		return 1
	}
	switch how {
	case suite.AggregateMin:
		return slices.Min(scores)
	case suite.AggregateMax:
		return slices.Max(scores)
	}
	sum := 0.0
	for _, s := range scores {
		sum += s
	}
	return sum / float64(len(scores))
}

// window keeps the system messages and the last size exchanges; size 0 keeps everything.
func window(history []suite.Message, size int) []suite.Message {
	if size <= 0 {
		return slices.Clone(history)
	}
	var system, rest []suite.Message
	for _, m := range history {
		if m.Role == suite.RoleSystem {
			system = append(system, m)
		} else {
			rest = append(rest, m)
		}
	}
	if n := 2 * size; len(rest) > n {
		rest = rest[len(rest)-n:]
	}
	return append(system, rest...)
}

// transcriptText renders a conversation as AgentV 4.x shows it to graders: "role: content"
// blocks, a blank line apart, non-text content as JSON.
func transcriptText(msgs []suite.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(m.Role)
		b.WriteString(": ")
		b.WriteString(messageText(m))
	}
	return b.String()
}

func messageText(m suite.Message) string {
	switch m.Content.Kind {
	case suite.ContentText:
		return m.Content.Text
	case suite.ContentStructured:
		return string(m.Content.Structured)
	case suite.ContentSegments:
		return string(suite.SegmentsJSON(m.Content.Segments))
	}
	return ""
}

// mergeTraces sums the turns' trace summaries; nil when no turn reported any.
func mergeTraces(ts []*results.TraceSummary) *results.TraceSummary {
	var out *results.TraceSummary
	for _, t := range ts {
		if t == nil {
			continue
		}
		if out == nil {
			out = &results.TraceSummary{ToolNames: []string{}, ToolCallsByName: map[string]int{}}
		}
		out.EventCount += t.EventCount
		out.ErrorCount += t.ErrorCount
		for name, n := range t.ToolCallsByName {
			out.ToolCallsByName[name] += n
		}
		if u := t.TokenUsage; u != nil {
			if out.TokenUsage == nil {
				out.TokenUsage = &results.TokenUsage{}
			}
			out.TokenUsage.Input += u.Input
			out.TokenUsage.Output += u.Output
			if u.Cached != nil {
				c := *u.Cached
				if out.TokenUsage.Cached != nil {
					c += *out.TokenUsage.Cached
				}
				out.TokenUsage.Cached = &c
			}
		}
		out.CostUSD = addPtr(out.CostUSD, t.CostUSD)
		out.DurationMS = addPtr(out.DurationMS, t.DurationMS)
	}
	if out != nil {
		out.ToolNames = append(out.ToolNames, slices.Sorted(maps.Keys(out.ToolCallsByName))...)
	}
	return out
}

func addPtr(a, b *float64) *float64 {
	switch {
	case b == nil:
		return a
	case a == nil:
		v := *b
		return &v
	}
	v := *a + *b
	return &v
}
