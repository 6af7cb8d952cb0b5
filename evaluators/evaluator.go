// Package evaluators scores a target's answer with graders: LLM judges, code judges, and
// deterministic checks, weighted into one outcome. Each type lives in one file that registers
// its names, a parse of its settings (run when the suite loads) and its evaluation.
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

// Options are run-wide evaluator settings.
type Options struct {
	Timeout    time.Duration // per judge call, code judge or template run (--timeout)
	MaxRetries int           // retries of a call that timed out (--max-retries), each with the whole Timeout
	// Judges returns the judge provider for an llm_judge with override, its own `target` (""):
	// else the target's judge_target, the run's --judge-target, the target itself.
	Judges   func(target *targets.Target, override string) (providers.Provider, error)
	Env      []string // environment for child processes (already filtered of the GitHub token)
	Redactor *redact.Redactor
	// Threshold is the case pass threshold (0: DefaultThreshold), the minimum of a `required`
	// evaluator without min_score.
	Threshold float64
}

// Input is everything an evaluator may look at for one case.
type Input struct {
	Case        *suite.Case
	Target      *targets.Target
	Request     *providers.Request  // what the target was sent (formatted question, guidelines, chat)
	Response    *providers.Response // the target's answer
	Candidate   string              // final answer text: last assistant message content
	Trace       *results.TraceSummary
	FileChanges string // the workspace's diff since set-up (4.x `file_changes`), "" for none
}

// Outcome is the aggregated verdict of all evaluators of a case.
type Outcome struct {
	Score     float64 // weighted mean of evaluator scores
	Hits      []string
	Misses    []string
	Reasoning string // "name: reasoning" parts joined with " | "
	Results   []results.EvaluatorResult
	// DefaultJudgeRequest is the default judge's request when the case configured no
	// evaluators: AgentV records it at the top of the record, and Results then hold none.
	DefaultJudgeRequest json.RawMessage
	Errored             bool // some evaluator could not score (its Error is set)
	// Passed, under GradingRules.VerdictOfResults for a case without its own threshold, is
	// the case's verdict: every result passed. nil: the score against the threshold decides.
	Passed *bool
}
