// Package evaluators scores a target's answer: llm_judge (default and custom prompts,
// executable prompt templates, template validation, verdict parsing), code_judge
// (subprocess with the judge payload on stdin), the AgentV 2.x types, the deterministic
// assertions of AgentV 4.x with the keys every entry may carry (negate, required, min_score)
// and weighted aggregation.
//
// Each type lives in one file that registers it from init: its names, a parse of its
// settings that the suite loader runs at load time, and its evaluation.
package evaluators

import (
	"encoding/json"
	"time"

	"github.com/agentv/action/internal/redact"
	"github.com/agentv/action/providers"
	"github.com/agentv/action/results"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/targets"
)

// JudgeResolver returns the judge provider for an llm_judge: override is the evaluator's own
// `target` ("" if none); the resolver applies the target's judge_target, then the run's
// --judge-target, then the target itself.
type JudgeResolver func(target *targets.Target, override string) (providers.Provider, error)

// Options are run-wide evaluator settings.
type Options struct {
	Timeout time.Duration // per judge call, code judge or template run (--timeout)
	// MaxRetries is how many times a judge call, code judge or template run that timed out
	// is tried again (--max-retries), each attempt with the whole Timeout.
	MaxRetries int
	Judges     JudgeResolver
	Env        []string // environment for child processes (already filtered of the GitHub token)
	Redactor   *redact.Redactor
	// Threshold is the case pass threshold (DefaultThreshold when 0): a `required` evaluator
	// without its own min_score must reach it or the case scores 0.
	Threshold float64
}

// Input is everything an evaluator may look at for one case.
type Input struct {
	Case      *suite.Case
	Target    *targets.Target
	Request   *providers.Request  // what the target was sent (formatted question, guidelines, chat)
	Response  *providers.Response // the target's answer
	Candidate string              // final answer text: last assistant message content
	Trace     *results.TraceSummary
	// FileChanges is the diff of the suite's workspace since it was set up (AgentV 4.x
	// `file_changes`), "" when nothing changed or there is no workspace.
	FileChanges string
}

// Outcome is the aggregated verdict of all evaluators of a case.
type Outcome struct {
	Score     float64 // weighted mean of evaluator scores
	Hits      []string
	Misses    []string
	Reasoning string // "name: reasoning" parts joined with " | "
	Results   []results.EvaluatorResult
	// DefaultJudgeRequest is the evaluator_provider_request of the default judge, set only when
	// the case configured no evaluators (AgentV records it at the top of the record); its
	// result in Results then has none, so the record holds the prompt once.
	DefaultJudgeRequest json.RawMessage
	// Errored is true when some evaluator could not produce a score (Results[i].Error set).
	Errored bool
}
