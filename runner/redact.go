package runner

import (
	"slices"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/results"
)

// redactRecord removes secrets from every text a record carries, so no report, results
// file or comment can leak a key a provider or script echoed back.
func redactRecord(rec *results.Record, red *redact.Redactor) {
	if red.Empty() {
		return
	}
	s := red.String
	rec.CandidateAnswer = s(rec.CandidateAnswer)
	rec.Reasoning = s(rec.Reasoning)
	rec.Error = s(rec.Error)
	redactList(rec.Hits, s)
	redactList(rec.Misses, s)
	rec.LMProviderRequest = red.Bytes(rec.LMProviderRequest)
	rec.AgentProviderRequest = red.Bytes(rec.AgentProviderRequest)
	rec.EvaluatorProviderRequest = red.Bytes(rec.EvaluatorProviderRequest)
	rec.ProviderMetadata = red.Bytes(rec.ProviderMetadata)
	rec.Output = red.Bytes(rec.Output)
	for i := range rec.Warnings {
		rec.Warnings[i].Message = s(rec.Warnings[i].Message)
	}
	redactEvaluators(rec.EvaluatorResults, red)
	redactTrace(rec.TraceSummary, red)
	redactTurns(rec.Turns, s)
	for i := range rec.Trials {
		t := &rec.Trials[i]
		t.CandidateAnswer = s(t.CandidateAnswer)
		t.Error = s(t.Error)
		redactEvaluators(t.EvaluatorResults, red)
		redactTurns(t.Turns, s)
	}
}

func redactTurns(turns []results.Turn, s func(string) string) {
	for i := range turns {
		t := &turns[i]
		t.Input, t.Answer, t.Error = s(t.Input), s(t.Answer), s(t.Error)
	}
}

// redactTrace masks secrets in tool names: a model decides them and may echo a key in one.
// Names that become equal once masked are counted together.
func redactTrace(ts *results.TraceSummary, red *redact.Redactor) {
	if ts == nil {
		return
	}
	if ts.ToolCallsByName != nil {
		byName := make(map[string]int, len(ts.ToolCallsByName))
		for name, n := range ts.ToolCallsByName {
			byName[red.String(name)] += n
		}
		ts.ToolCallsByName = byName
	}
	if ts.ToolNames != nil {
		names := make([]string, 0, len(ts.ToolNames))
		for _, name := range ts.ToolNames {
			names = append(names, red.String(name))
		}
		slices.Sort(names)
		ts.ToolNames = slices.Compact(names)
	}
}

func redactEvaluators(rs []results.EvaluatorResult, red *redact.Redactor) {
	for i := range rs {
		e := &rs[i]
		e.Reasoning = red.String(e.Reasoning)
		e.Error = red.String(e.Error)
		redactList(e.Hits, red.String)
		redactList(e.Misses, red.String)
		e.EvaluatorProviderRequest = red.Bytes(e.EvaluatorProviderRequest)
		e.Details = red.Bytes(e.Details)
		redactEvaluators(e.EvaluatorResults, red)
	}
}

func redactList(l []string, s func(string) string) {
	for i := range l {
		l[i] = s(l[i])
	}
}
