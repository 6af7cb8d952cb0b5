/**
 * Types of the payload that agentv writes to the stdin of prompt templates and code judges,
 * as the SDK hands it to handlers.
 *
 * On the wire the payload's own keys are snake_case (`expected_output`, `tool_calls`); the SDK
 * renames those keys, and the keys of messages and tool calls, to camelCase. User data is never
 * renamed: message `content`, tool call `input`/`output`, message `metadata`, `config` and the
 * tool names inside `traceSummary` keep their keys exactly as written (`riskLevel`, `get_weather`).
 */

/** One call to a tool, inside a message's `toolCalls`. */
export interface ToolCall {
  /** Tool name, as the agent reported it. */
  tool: string;
  /** Arguments, exactly as the agent sent them (keys not renamed). */
  input?: unknown;
  /** Result, exactly as the tool returned it (keys not renamed). */
  output?: unknown;
  id?: string;
  /** ISO 8601 time of the call. */
  timestamp?: string;
  /** Milliseconds the call took. */
  durationMs?: number;
  [key: string]: unknown;
}

/** One message of a conversation: the eval case's input, the expected output or the agent's output. */
export interface Message {
  /** `system`, `user`, `assistant` or `tool`. */
  role: string;
  name?: string;
  /** A string, or structured content exactly as written in the eval file (keys not renamed). */
  content?: unknown;
  toolCalls?: ToolCall[];
  /** ISO 8601 time of the message. */
  timestamp?: string;
  /** Milliseconds the message took to produce. */
  durationMs?: number;
  /** Provider metadata, as the provider reported it (keys not renamed). */
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Token counts of the target's invocation. */
export interface TokenUsage {
  input: number;
  output: number;
  cached?: number;
}

/** What the target did while answering, when agentv knows it. */
export interface TraceSummary {
  /** Number of tool calls. */
  eventCount: number;
  /** Distinct tool names, sorted. */
  toolNames: string[];
  /** Calls per tool name (the names are data and keep their spelling). */
  toolCallsByName: Record<string, number>;
  errorCount: number;
  tokenUsage?: TokenUsage;
  /** Cost of the invocation in US dollars. */
  costUsd?: number;
  /** Milliseconds the invocation took. */
  durationMs?: number;
  [key: string]: unknown;
}

/**
 * The evaluation context of one eval case. Older and newer field names are both present and hold
 * the same values: `candidateAnswer`/`actualOutput`, `expectedMessages`/`expectedOutput`,
 * `inputMessages`/`input`.
 */
export interface CodeJudgeInput {
  /** The question asked of the target (the case's input as text). */
  question: string;
  /** What a good answer achieves, in words ('' when not given). */
  expectedOutcome: string;
  /** The expected output as messages ([] when not given). Same value as `expectedMessages`. */
  expectedOutput: Message[];
  /** Older name of `expectedOutput`. */
  expectedMessages: Message[];
  /** The messages sent to the target. Same value as `inputMessages`. */
  input: Message[];
  /** Older name of `input`. */
  inputMessages: Message[];
  /** The target's final answer. Same value as `candidateAnswer`. */
  actualOutput: string;
  /** Older name of `actualOutput`. */
  candidateAnswer: string;
  /** All messages the target produced, when the provider reports them. */
  outputMessages: Message[] | null;
  /** The reference answer, or null when the case has none. */
  referenceAnswer: string | null;
  /** Absolute paths of the guideline files of the case. */
  guidelineFiles: string[];
  /** Absolute paths of the other input files of the case. */
  inputFiles: string[];
  /** Tool calls, tokens, cost and duration of the target's run, or null when unknown. */
  traceSummary: TraceSummary | null;
  /** Settings from the evaluator's YAML entry, passed through unchanged, or null. */
  config: Record<string, unknown> | null;
}

/** What a prompt template receives: the same context as a code judge. */
export type PromptTemplateInput = CodeJudgeInput;

/** Earlier name of the code judge context, as `@agentv/core` exports it. */
export type CodeJudgePayload = CodeJudgeInput;

/** A code judge's verdict. */
export interface CodeJudgeResult {
  /** 0 to 1; values outside are clamped. */
  score: number;
  /** What the answer got right. */
  hits?: string[];
  /** What the answer got wrong or missed. */
  misses?: string[];
  /** Why this score. */
  reasoning?: string;
  /** Any JSON object; copied to the results record unchanged. */
  details?: Record<string, unknown>;
}

/** Builds the prompt for an llm_judge from the evaluation context. */
export type PromptTemplateHandler = (input: PromptTemplateInput) => string | Promise<string>;

/** Scores the target's answer from the evaluation context. */
export type CodeJudgeHandler = (input: CodeJudgeInput) => CodeJudgeResult | Promise<CodeJudgeResult>;
