package otlp

// Attribute names. The agentv.* names of the root span and its grader events are AgentV
// 4.42.4's (its --otel-file), so dashboards and `agentv inspect` built on them keep working;
// gen_ai.* are the OpenTelemetry GenAI semantic conventions; openinference.span.kind, llm.*,
// input.value and output.value are OpenInference's, which Phoenix reads and Langfuse maps.
const (
	// Root span (the case).
	attrTestID         = "agentv.test_id"
	attrSuite          = "agentv.suite" // the dataset
	attrTarget         = "agentv.target"
	attrScore          = "agentv.score"
	attrVerdict        = "agentv.verdict"
	attrFile           = "agentv.file"
	attrLine           = "agentv.line"
	attrAttempts       = "agentv.attempts"
	attrThreshold      = "agentv.case_threshold"
	attrConversationID = "agentv.conversation_id"
	attrTrials         = "agentv.trials"
	attrTrialsPassed   = "agentv.trials_passed"
	attrTrialStrategy  = "agentv.trial_strategy"
	attrFlaky          = "agentv.flaky"
	attrBaselineScore  = "agentv.baseline_score"
	attrRunID          = "agentv.run.id"
	attrOutputText     = "agentv.output_text" // content
	attrDurationMS     = "agentv.trace.duration_ms"
	attrCostUSD        = "agentv.trace.cost_usd"
	attrTokenInput     = "agentv.trace.token_input"
	attrTokenOutput    = "agentv.trace.token_output"
	attrTokenCached    = "agentv.trace.token_cached"
	attrEventCount     = "agentv.trace.event_count"
	attrToolNames      = "agentv.trace.tool_names"
	attrErrorCount     = "agentv.trace.error_count"
	attrCacheHits      = "agentv.cache.hits"
	attrSessionID      = "session.id" // Langfuse and Phoenix group a run's traces by it

	// Trials and turns.
	attrTrial = "agentv.trial"
	attrTurn  = "agentv.turn"

	// Graders (spans, and AgentV 4.x's events on the root span).
	graderEventPrefix = "agentv.grader."
	attrGraderName    = "agentv.grader.name"
	attrGraderType    = "agentv.grader.type"
	attrGraderScore   = "agentv.grader.score"
	attrGraderVerdict = "agentv.grader.verdict"
	attrGraderWeight  = "agentv.grader.weight"
	attrGraderTries   = "agentv.grader.attempts"
	attrGraderHits    = "agentv.grader.hits"   // content
	attrGraderMisses  = "agentv.grader.misses" // content

	// OpenTelemetry GenAI semantic conventions.
	attrOperation    = "gen_ai.operation.name"
	attrSystem       = "gen_ai.system" // deprecated in the conventions; AgentV 4.x sets it
	attrAgentName    = "gen_ai.agent.name"
	attrInputTokens  = "gen_ai.usage.input_tokens"
	attrOutputTokens = "gen_ai.usage.output_tokens"
	attrCachedTokens = "gen_ai.usage.cache_read.input_tokens"
	attrCost         = "gen_ai.usage.cost"      // not in the conventions: Langfuse's name for it
	attrInputMsgs    = "gen_ai.input.messages"  // content
	attrOutputMsgs   = "gen_ai.output.messages" // content
	attrEvalName     = "gen_ai.evaluation.name"
	attrEvalScore    = "gen_ai.evaluation.score.value"
	attrEvalLabel    = "gen_ai.evaluation.score.label"
	attrEvalExplain  = "gen_ai.evaluation.explanation" // content
	attrErrorType    = "error.type"
	attrToolName     = "gen_ai.tool.name"
	attrToolCallID   = "gen_ai.tool.call.id"
	attrToolArgs     = "gen_ai.tool.call.arguments" // content
	attrToolResult   = "gen_ai.tool.call.result"    // content

	// OpenInference.
	attrKind         = "openinference.span.kind"
	attrPromptTokens = "llm.token_count.prompt"
	attrCompTokens   = "llm.token_count.completion"
	attrTotalTokens  = "llm.token_count.total"
	attrInputValue   = "input.value"  // content
	attrOutputValue  = "output.value" // content
	attrInputMIME    = "input.mime_type"
)

// Operation names (gen_ai.operation.name) and span names.
const (
	opEvaluate    = "evaluate" // the case, as AgentV 4.x names it
	opChat        = "chat"
	opInvokeAgent = "invoke_agent"

	spanCase   = "agentv.eval"
	spanTrial  = "agentv.trial"
	spanGrader = "agentv.grader"
)
