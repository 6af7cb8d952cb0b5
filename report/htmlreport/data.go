package htmlreport

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/agentv/action/compare"
	"github.com/agentv/action/internal/logtext"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/results"
)

// textLimit is the most bytes of one text (answer, reasoning, input, turn) the page keeps. Records
// already cap texts at textcap.Max; the page keeps less so a run of long answers stays a file a
// browser opens quickly, and says how much it left out.
const textLimit = 32 << 10

// listLimit is the most entries of a list (hits, misses, assertions, trials, turns) kept a case.
const listLimit = 200

// whyLimit is the most bytes of a failing case's reason the list row carries (and searches).
const whyLimit = 300

// row is what the case list needs of one case: every field is filtered, sorted or shown in the
// row. Short keys keep a 10,000-case index small.
type row struct {
	ID      string   `json:"id"`
	Dataset string   `json:"ds,omitempty"`
	Target  string   `json:"tg,omitempty"`
	File    string   `json:"f,omitempty"`
	Line    int      `json:"l,omitempty"`
	Verdict string   `json:"v"`
	Score   float64  `json:"s"`
	DurMS   int64    `json:"d"`
	Cost    *float64 `json:"c,omitempty"`
	TokIn   int64    `json:"ti,omitempty"`
	TokOut  int64    `json:"to,omitempty"`
	Flaky   bool     `json:"fl,omitempty"`
	Trials  int      `json:"tr,omitempty"`
	Passed  int      `json:"tp,omitempty"`
	Graders []string `json:"g,omitempty"`
	// Base is the baseline's score, Delta the change, Class what compare made of it.
	Base  *float64 `json:"b,omitempty"`
	Delta *float64 `json:"dl,omitempty"`
	Class string   `json:"cl,omitempty"`
	Why   string   `json:"w,omitempty"`
}

// detail is what a case shows once opened, written as its record is read and parsed by the page
// only when a case is first opened.
type detail struct {
	Input     string      `json:"in,omitempty"`
	Answer    string      `json:"ans,omitempty"`
	Reasoning string      `json:"rs,omitempty"`
	Error     string      `json:"err,omitempty"`
	Hits      []string    `json:"hits,omitempty"`
	Misses    []string    `json:"miss,omitempty"`
	Graders   []grader    `json:"gr,omitempty"`
	Turns     []turn      `json:"tu,omitempty"`
	Trials    []trial     `json:"tri,omitempty"`
	Tools     []string    `json:"tools,omitempty"`
	Warnings  []string    `json:"warn,omitempty"`
	Threshold *float64    `json:"th,omitempty"`
	Attempts  int         `json:"at,omitempty"`
	Timestamp string      `json:"ts,omitempty"`
	TokCached *int64      `json:"tc,omitempty"`
	History   []Point     `json:"hist,omitempty"`
	Dropped   int         `json:"drop,omitempty"` // list entries left out past listLimit
	Interval  *[2]float64 `json:"ci,omitempty"`
}

type grader struct {
	Name      string      `json:"n"`
	Type      string      `json:"t,omitempty"`
	Score     float64     `json:"s"`
	Weight    float64     `json:"w"`
	Verdict   string      `json:"v,omitempty"`
	Reasoning string      `json:"rs,omitempty"`
	Error     string      `json:"err,omitempty"`
	Hits      []string    `json:"hits,omitempty"`
	Misses    []string    `json:"miss,omitempty"`
	Asserts   []assertion `json:"as,omitempty"`
	Children  []grader    `json:"ch,omitempty"`
	DurMS     int64       `json:"d,omitempty"`
}

type assertion struct {
	Text     string `json:"t"`
	Passed   bool   `json:"p"`
	Evidence string `json:"e,omitempty"`
}

type turn struct {
	N       int     `json:"n"`
	Input   string  `json:"in,omitempty"`
	Answer  string  `json:"ans,omitempty"`
	Score   float64 `json:"s"`
	Verdict string  `json:"v"`
	Error   string  `json:"err,omitempty"`
	DurMS   int64   `json:"d"`
}

type trial struct {
	N       int      `json:"n"`
	Score   float64  `json:"s"`
	Verdict string   `json:"v"`
	Answer  string   `json:"ans,omitempty"`
	Error   string   `json:"err,omitempty"`
	DurMS   int64    `json:"d"`
	Cost    *float64 `json:"c,omitempty"`
	Turns   []turn   `json:"tu,omitempty"`
	Graders []grader `json:"gr,omitempty"`
}

// text makes model or user text safe to carry: control characters and terminal escapes gone
// (the page shows text as text, but a stray escape is noise), capped at textLimit.
func text(s string) string {
	if s == "" {
		return ""
	}
	return textcap.CapAt(logtext.Block(s), textLimit)
}

func texts(list []string, dropped *int) []string {
	if len(list) == 0 {
		return nil
	}
	n := min(len(list), listLimit)
	*dropped += len(list) - n
	out := make([]string, n)
	for i := range n {
		out[i] = text(list[i])
	}
	return out
}

// finite keeps a number JSON can carry: NaN and infinities (a broken record) become 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func finitePtr(f *float64) *float64 {
	if f == nil {
		return nil
	}
	v := finite(*f)
	return &v
}

// verdictOf is how the reports count a record: an error or an unknown verdict is errored.
func verdictOf(r *results.Record) string {
	if r.Error != "" {
		return string(results.VerdictError)
	}
	switch r.Verdict {
	case results.VerdictPass, results.VerdictFail:
		return string(r.Verdict)
	}
	return string(results.VerdictError)
}

// rowOf makes a record's row; cmp is its baseline comparison, nil without one.
func rowOf(r *results.Record, cmp *compare.Case) row {
	rw := row{
		ID: text(r.EvalID), Dataset: text(r.Dataset), Target: text(r.Target),
		File: text(r.File), Line: r.Line, Verdict: verdictOf(r), Score: finite(r.Score), DurMS: r.DurationMS,
		Flaky: r.Flaky, Trials: len(r.Trials), Passed: r.TrialsPassed(),
	}
	if t := r.TraceSummary; t != nil {
		rw.Cost = finitePtr(t.CostUSD)
		if u := t.TokenUsage; u != nil {
			rw.TokIn, rw.TokOut = u.Input, u.Output
		}
	}
	seen := map[string]bool{}
	for _, e := range r.EvaluatorResults {
		name := text(cmpOr(e.Type, e.Name))
		if !seen[name] && len(rw.Graders) < 32 {
			seen[name] = true
			rw.Graders = append(rw.Graders, name)
		}
	}
	rw.Base = finitePtr(r.BaselineScore)
	if cmp != nil {
		rw.Class = string(cmp.Class)
		if cmp.Before != nil {
			rw.Base = finitePtr(&cmp.Before.Score)
			d := finite(cmp.Delta)
			rw.Delta = &d
		}
	} else if rw.Base != nil {
		d := finite(r.Score) - *rw.Base
		rw.Delta = &d
	}
	if rw.Verdict != string(results.VerdictPass) {
		rw.Why = textcap.CapAt(strings.TrimSpace(logtext.Line(whyOf(r))), whyLimit)
	}
	return rw
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// whyOf is the first reason a case did not pass: its error, a grader's error, or its misses.
func whyOf(r *results.Record) string {
	if r.Error != "" {
		return r.Error
	}
	for _, e := range r.EvaluatorResults {
		if e.Error != "" {
			return e.Name + ": " + e.Error
		}
	}
	if len(r.Misses) > 0 {
		return strings.Join(r.Misses, "; ")
	}
	return r.Reasoning
}

// detailOf makes what an opened case shows.
func detailOf(r *results.Record, hist []Point) detail {
	d := detail{
		Input: text(inputOf(r)), Answer: text(r.CandidateAnswer), Reasoning: text(r.Reasoning), Error: text(r.Error),
		Threshold: finitePtr(r.CaseThreshold), Attempts: r.Attempts, Timestamp: text(r.Timestamp), History: hist,
	}
	d.Hits, d.Misses = texts(r.Hits, &d.Dropped), texts(r.Misses, &d.Dropped)
	d.Graders = graders(r.EvaluatorResults, &d.Dropped, 0)
	d.Turns = turns(r.Turns, &d.Dropped)
	for i, t := range r.Trials {
		if i == listLimit {
			d.Dropped += len(r.Trials) - i
			break
		}
		d.Trials = append(d.Trials, trial{N: t.Trial, Score: finite(t.Score), Verdict: string(t.Verdict), Answer: text(t.CandidateAnswer),
			Error: text(t.Error), DurMS: t.DurationMS, Cost: finitePtr(t.CostUSD), Turns: turns(t.Turns, &d.Dropped),
			Graders: graders(t.EvaluatorResults, &d.Dropped, 0)})
	}
	if t := r.TraceSummary; t != nil {
		d.Tools = texts(t.ToolNames, &d.Dropped)
		if t.TokenUsage != nil {
			d.TokCached = t.TokenUsage.Cached
		}
	}
	for i, w := range r.Warnings {
		if i == listLimit {
			break
		}
		d.Warnings = append(d.Warnings, text(w.Message))
	}
	if ci := r.TrialInterval; ci != nil {
		d.Interval = &[2]float64{finite(ci.Low), finite(ci.High)}
	}
	return d
}

func turns(list []results.Turn, dropped *int) []turn {
	var out []turn
	for i, t := range list {
		if i == listLimit {
			*dropped += len(list) - i
			break
		}
		out = append(out, turn{N: t.Turn, Input: text(t.Input), Answer: text(t.Answer), Score: finite(t.Score),
			Verdict: t.Verdict, Error: text(t.Error), DurMS: t.DurationMS})
	}
	return out
}

// graders copies evaluator results, nested ones (a composite's) up to a few levels deep.
func graders(list []results.EvaluatorResult, dropped *int, depth int) []grader {
	if depth > 4 {
		return nil
	}
	var out []grader
	for i, e := range list {
		if i == listLimit {
			*dropped += len(list) - i
			break
		}
		g := grader{Name: text(e.Name), Type: text(e.Type), Score: finite(e.Score), Weight: finite(e.Weight), Verdict: text(e.Verdict),
			Reasoning: text(e.Reasoning), Error: text(e.Error), DurMS: e.DurationMS,
			Hits: texts(e.Hits, dropped), Misses: texts(e.Misses, dropped), Children: graders(e.EvaluatorResults, dropped, depth+1)}
		if e.NoWeight {
			g.Weight = 1 // an entry without a weight (5.x conversation turns) shows none, not "weight 0"
		}
		for j, a := range e.Assertions {
			if j == listLimit {
				*dropped += len(e.Assertions) - j
				break
			}
			g.Asserts = append(g.Asserts, assertion{Text: text(a.Text), Passed: a.Passed, Evidence: text(a.Evidence)})
		}
		out = append(out, g)
	}
	return out
}

// inputOf is what the target was asked: the request's question when it has one, else the
// request as recorded.
func inputOf(r *results.Record) string {
	raw := r.LMProviderRequest
	if len(raw) == 0 {
		raw = r.AgentProviderRequest
	}
	if len(raw) == 0 {
		if len(r.Turns) > 0 {
			return r.Turns[0].Input
		}
		return ""
	}
	var req struct {
		Question string `json:"question"`
	}
	if json.Unmarshal(raw, &req) == nil && req.Question != "" {
		return req.Question
	}
	return string(raw)
}
