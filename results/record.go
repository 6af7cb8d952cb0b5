// Package results defines the results record: one JSON line per eval case. Every report is
// rendered from these records alone, so `agentv report` re-renders a results file.
package results

import (
	"encoding/json"
	"math"

	"github.com/agentv/action/internal/jsonx"
	"github.com/agentv/action/internal/textcap"
	"github.com/agentv/action/suite"
)

// Verdict is the outcome of one case.
type Verdict string

// Case verdicts.
const (
	VerdictPass  Verdict = "pass"  // score >= case threshold and no error
	VerdictFail  Verdict = "fail"  // score below the case threshold, no error
	VerdictError Verdict = "error" // the target gave no answer, or an evaluator could not score
)

// Evaluator verdicts. AgentV 2.5 bands a score: pass >= 0.8, borderline >= 0.6, else fail.
// AgentV 4.x has pass and fail only, split at 0.8, and skip for a grader that did not run.
const (
	BandPass       = "pass"
	BandBorderline = "borderline"
	BandFail       = "fail"
	BandSkip       = "skip"
)

// Band returns AgentV's evaluator verdict for a score.
func Band(score float64) string {
	switch {
	case score >= 0.8:
		return BandPass
	case score >= 0.6:
		return BandBorderline
	}
	return BandFail
}

// PassFail returns AgentV 4.x's grader verdict for a score: pass at 0.8 or above, else fail.
// 4.42.4 derives every grader's verdict so (graders/scoring.ts, scoreToVerdict with its
// default threshold): neither the grader's min_score nor the test's threshold moves it.
func PassFail(score float64) string {
	if score >= 0.8 {
		return BandPass
	}
	return BandFail
}

// Record is one case's result: the AgentV 2.x record plus verdict, timing and source position.
type Record struct {
	Timestamp       string   `json:"timestamp"` // RFC 3339 with milliseconds, UTC, completion time
	EvalID          string   `json:"eval_id"`
	Dataset         string   `json:"dataset"`
	ConversationID  string   `json:"conversation_id,omitempty"`
	Score           float64  `json:"score"`
	Hits            []string `json:"hits"`
	Misses          []string `json:"misses"`
	CandidateAnswer string   `json:"candidate_answer"`
	Target          string   `json:"target"`
	Reasoning       string   `json:"reasoning,omitempty"`
	// Exactly one of these holds what the target was sent.
	LMProviderRequest    json.RawMessage `json:"lm_provider_request,omitempty"`
	AgentProviderRequest json.RawMessage `json:"agent_provider_request,omitempty"`
	// EvaluatorProviderRequest is set for the default judge (no configured evaluators), as AgentV
	// does; that judge's entry in EvaluatorResults then carries none.
	EvaluatorProviderRequest json.RawMessage   `json:"evaluator_provider_request,omitempty"`
	EvaluatorResults         []EvaluatorResult `json:"evaluator_results"`
	Error                    string            `json:"error,omitempty"`
	TraceSummary             *TraceSummary     `json:"trace_summary,omitempty"`
	// ProviderMetadata is what a provider reported besides its answer.
	ProviderMetadata json.RawMessage `json:"provider_metadata,omitempty"`
	// Output is the target's answer as 4.x output messages when they hold more than the answer
	// text (see OutputOf); the run directory's trace.json and transcript.jsonl come from it.
	Output json.RawMessage `json:"output,omitempty"`

	Verdict    Verdict `json:"verdict"`
	DurationMS int64   `json:"duration_ms"` // wall time of the whole case: target and evaluators
	Attempts   int     `json:"attempts"`    // target invocations made (1 + retries)
	File       string  `json:"file"`        // eval file, as displayed (workspace-relative when possible)
	Line       int     `json:"line"`        // 1-based line of the case in File
	// CaseThreshold is the score this case passes at when its eval file sets one (4.x's
	// execution.threshold), nil when the run's applies.
	CaseThreshold *float64           `json:"case_threshold,omitempty"`
	Warnings      []suite.Diagnostic `json:"warnings,omitempty"` // load-time warnings of this case
	// Trials holds every trial when the case ran more than once; Score and Verdict are then
	// their aggregate.
	Trials []Trial `json:"trials,omitempty"`
	// TrialsInFile is how many trials the line read held when it held more than a run records
	// (suite.MaxTrials), 0 otherwise. Never written, nor the two fields below.
	TrialsInFile int    `json:"-"`
	FromV4Index  bool   `json:"-"` // read from a row of a 4.x index.jsonl
	V4Status     string `json:"-"` // such a row's execution_status
	Flaky        bool   `json:"flaky,omitempty"`
	// Turns holds each turn of a conversation test; EvaluatorResults then has one entry per
	// turn ("turn-1", ...) and "conversation" for the test's own evaluators.
	Turns []Turn `json:"turns,omitempty"`
	// TrialStrategy made Score and Verdict of Trials, so a report can re-grade them.
	TrialStrategy string `json:"trial_strategy,omitempty"`
	// TrialPassAt is the score each trial's own verdict passes at when that is not the case
	// threshold: 0.8 for a case of an AgentV 4.x file, as 4.42.4 grades a trial
	// (scoreToVerdict) whatever the threshold. nil: trials pass at the case threshold.
	TrialPassAt *float64 `json:"trial_pass_at,omitempty"`
	// TrialsByAggregate is set when a mean or confidence_interval case's verdict holds its
	// aggregate score to the threshold (as 4.42.4's summary does with a threshold); else it
	// passes when any trial reached it.
	TrialsByAggregate bool           `json:"trials_by_aggregate,omitempty"`
	TrialInterval     *TrialInterval `json:"trial_interval,omitempty"` // confidence_interval only
	// TrialsCostLimited is set when trials stopped early at the cost limit.
	TrialsCostLimited bool `json:"trials_cost_limited,omitempty"`
	// BaselineScore is the case's score in the baseline (errored counting 0), nil without one.
	BaselineScore *float64 `json:"baseline_score,omitempty"`
	// Cache is set when a call of this case went through the response cache.
	Cache *CacheUse `json:"cache,omitempty"`
}

// Turn verdicts beyond pass, fail and error.
const TurnNotSent = "not_sent" // an earlier turn failed and on_turn_failure is stop

// Turn is one turn of a conversation test.
type Turn struct {
	Turn       int     `json:"turn"` // 1-based
	Input      string  `json:"input"`
	Answer     string  `json:"answer,omitempty"`
	Score      float64 `json:"score"`
	Verdict    string  `json:"verdict"` // pass | fail | error | not_sent
	Error      string  `json:"error,omitempty"`
	DurationMS int64   `json:"duration_ms"`
}

// TrialInterval is a 95% confidence interval of the mean of a case's trial scores.
type TrialInterval struct {
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"` // sample standard deviation (n-1)
}

// CacheUse says how a case's calls went through the response cache.
type CacheUse struct {
	Hits        int   `json:"hits"`                   // calls answered from the cache
	Misses      int   `json:"misses"`                 // calls made because the cache had no answer
	TokensSaved int64 `json:"tokens_saved,omitempty"` // tokens the cached answers had cost
}

// Trial is one run of a case when it ran several times.
type Trial struct {
	Trial            int               `json:"trial"` // 1-based
	Score            float64           `json:"score"`
	Verdict          Verdict           `json:"verdict"`
	CandidateAnswer  string            `json:"candidate_answer,omitempty"`
	EvaluatorResults []EvaluatorResult `json:"evaluator_results,omitempty"`
	Error            string            `json:"error,omitempty"`
	DurationMS       int64             `json:"duration_ms"`
	CostUSD          *float64          `json:"cost_usd,omitempty"` // what the target reported this trial cost
	Turns            []Turn            `json:"turns,omitempty"`    // a conversation test's, this trial
}

// EvaluatorResult is one evaluator's verdict on a case.
type EvaluatorResult struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Score     float64  `json:"score"`
	Weight    float64  `json:"weight"`
	Verdict   string   `json:"verdict"` // 2.5: pass | borderline | fail; 4.x: pass | fail | skip
	Hits      []string `json:"hits"`
	Misses    []string `json:"misses"`
	Reasoning string   `json:"reasoning,omitempty"`
	// Assertions are the criteria a 4.x verdict checked, with the grader's evidence; Hits and
	// Misses hold their texts. nil for verdicts without them.
	Assertions []Assertion `json:"assertions,omitempty"`
	// EvaluatorProviderRequest records what the evaluator sent.
	EvaluatorProviderRequest json.RawMessage   `json:"evaluator_provider_request,omitempty"`
	EvaluatorResults         []EvaluatorResult `json:"evaluator_results,omitempty"`
	Details                  json.RawMessage   `json:"details,omitempty"`
	Error                    string            `json:"error,omitempty"` // no score: the case is then errored
	DurationMS               int64             `json:"duration_ms"`
	// Attempts is 1 + the retries when a judge call or script timed out, else 0.
	Attempts int `json:"attempts,omitempty"`
	// NoWeight: the entry has no weight of its own (AgentV 5.x's turn-N and conversation
	// entries, which 5.3.1-next.1 records without one); every writer then leaves `weight` out,
	// and a record read without one has it set. Weight still counts where scores are added.
	NoWeight bool `json:"-"`
}

// evaluatorResultNoWeight is EvaluatorResult written without its weight: the same fields (a
// conversion checks it at compile time), Weight's tag alone differs.
type evaluatorResultNoWeight struct {
	Name                     string            `json:"name"`
	Type                     string            `json:"type"`
	Score                    float64           `json:"score"`
	Weight                   float64           `json:"-"`
	Verdict                  string            `json:"verdict"`
	Hits                     []string          `json:"hits"`
	Misses                   []string          `json:"misses"`
	Reasoning                string            `json:"reasoning,omitempty"`
	Assertions               []Assertion       `json:"assertions,omitempty"`
	EvaluatorProviderRequest json.RawMessage   `json:"evaluator_provider_request,omitempty"`
	EvaluatorResults         []EvaluatorResult `json:"evaluator_results,omitempty"`
	Details                  json.RawMessage   `json:"details,omitempty"`
	Error                    string            `json:"error,omitempty"`
	DurationMS               int64             `json:"duration_ms"`
	Attempts                 int               `json:"attempts,omitempty"`
	NoWeight                 bool              `json:"-"`
}

// evaluatorResultJSON is EvaluatorResult without its methods, for encoding/json.
type evaluatorResultJSON EvaluatorResult

// MarshalJSON writes the entry as its fields say, leaving weight out under NoWeight. HTML is
// not escaped here: an encoder that escapes it (json.Marshal) still does so on this output,
// and one that does not (results.jsonl) keeps the text as it is.
func (e EvaluatorResult) MarshalJSON() ([]byte, error) {
	if e.NoWeight {
		return jsonx.Marshal(evaluatorResultNoWeight(e))
	}
	return jsonx.Marshal(evaluatorResultJSON(e))
}

// UnmarshalJSON reads an entry; without a weight (or with null) it has NoWeight.
func (e *EvaluatorResult) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	v := evaluatorResultJSON{Weight: math.NaN()} // no JSON number is NaN: left so, weight was absent
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if math.IsNaN(v.Weight) {
		v.Weight, v.NoWeight = 0, true
	}
	*e = EvaluatorResult(v)
	return nil
}

// WeightOrNil is the entry's weight as the writers of AgentV's run layout give it (not a
// number: 0), nil under NoWeight.
func (e *EvaluatorResult) WeightOrNil() *float64 {
	if e.NoWeight {
		return nil
	}
	w := finite(e.Weight)
	return &w
}

// Assertion is one criterion a grader checked, and what it saw.
type Assertion struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence,omitempty"`
}

// TraceSummary summarises what the target did.
type TraceSummary struct {
	EventCount      int            `json:"event_count"`
	ToolNames       []string       `json:"tool_names"`
	ToolCallsByName map[string]int `json:"tool_calls_by_name"`
	ErrorCount      int            `json:"error_count"`
	TokenUsage      *TokenUsage    `json:"token_usage,omitempty"`
	CostUSD         *float64       `json:"cost_usd,omitempty"`
	DurationMS      *float64       `json:"duration_ms,omitempty"`
}

// TokenUsage counts tokens of one target invocation.
type TokenUsage struct {
	Input  int64  `json:"input"`
	Output int64  `json:"output"`
	Cached *int64 `json:"cached,omitempty"`
}

// outputMessage is an output message as 4.x writes it.
type outputMessage struct {
	Role      string          `json:"role"`
	Name      string          `json:"name,omitempty"`
	Content   any             `json:"content,omitempty"`
	ToolCalls json.RawMessage `json:"tool_calls,omitempty"`
}

// maxOutput is the most bytes of output messages a record keeps: past it a record keeps none
// (its trace then shows the answer alone), so one agent's huge transcript cannot make a
// results line that readers refuse.
const maxOutput = 4 * textcap.Max

// OutputOf is msgs as a record's Output: nil when they are at most one assistant message
// with no tool calls (the candidate answer holds it); each text capped as an answer is.
func OutputOf(msgs []suite.Message) json.RawMessage {
	if len(msgs) == 0 || (len(msgs) == 1 && msgs[0].Role == suite.RoleAssistant && len(msgs[0].ToolCalls) == 0) {
		return nil
	}
	list := make([]outputMessage, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		list[i] = outputMessage{Role: m.Role, Name: m.Name}
		switch m.Content.Kind {
		case suite.ContentText:
			list[i].Content = textcap.Cap(m.Content.Text)
		case suite.ContentStructured:
			list[i].Content = validRaw(m.Content.Structured)
		case suite.ContentSegments:
			segs := make([]any, len(m.Content.Segments))
			for j, sg := range m.Content.Segments {
				if sg.Type != "text" && len(sg.Raw) > 0 && json.Valid(sg.Raw) {
					segs[j] = sg.Raw
				} else {
					segs[j] = map[string]string{"type": sg.Type, "value": sg.Value}
				}
			}
			list[i].Content = segs
		}
		if t := validRaw(m.ToolCalls); t != nil && string(t) != "null" {
			list[i].ToolCalls = t
		}
	}
	b, err := jsonx.Marshal(list)
	if err != nil || len(b) > maxOutput {
		return nil
	}
	return b
}
