/**
 * Types of the evaluation context as the `@agentv/sdk` helpers hand it to handlers: the field names
 * AgentV 4.x code graders, custom assertions and prompt templates use (`output`, `criteria`,
 * `expectedOutput`, `messages`, ...), every key camelCased as 4.x does.
 */
/** One call to a tool, inside a message's `toolCalls`. */
export interface ToolCall {
    tool: string;
    input?: unknown;
    output?: unknown;
    id?: string;
    startTime?: string;
    endTime?: string;
    durationMs?: number;
    [key: string]: unknown;
}
/** One message: of the test's input, the expected output or the agent's transcript. */
export interface Message {
    /** `system`, `user`, `assistant` or `tool`. */
    role: string;
    /** A string, a list of content blocks, or structured content from the eval file. */
    content?: unknown;
    toolCalls?: ToolCall[];
    name?: string;
    startTime?: string;
    endTime?: string;
    durationMs?: number;
    metadata?: Record<string, unknown>;
    [key: string]: unknown;
}
/** Token counts of the target's run. */
export interface TokenUsage {
    input: number;
    output: number;
    cached?: number;
    reasoning?: number;
}
/** A compact summary of what the target did. */
export interface TraceSummary {
    /** Number of tool calls. */
    eventCount: number;
    /** Calls per tool name (the names camelCased like every key: `read_file` is `readFile`). */
    toolCalls: Record<string, number>;
    errorCount: number;
    toolDurations?: Record<string, number[]>;
    llmCallCount?: number;
    [key: string]: unknown;
}
/** One event of a trace: a message, a tool call or its result, the final response, an error. */
export interface TraceEvent {
    eventId: string;
    parentEventId?: string;
    ordinal: number;
    type: 'message' | 'model_turn' | 'tool_call' | 'tool_result' | 'final_response' | 'error';
    timestamp?: string;
    durationMs?: number;
    message?: {
        role: string;
        name?: string;
        content?: unknown;
        tokenUsage?: TokenUsage;
        metadata?: Record<string, unknown>;
    };
    tool?: {
        name: string;
        callId?: string;
        input?: unknown;
        output?: unknown;
        status?: string;
        [key: string]: unknown;
    };
    metadata?: Record<string, unknown>;
    [key: string]: unknown;
}
/** The trace of the target's run: the summary, the whole transcript and the events derived from it. */
export interface Trace extends TraceSummary {
    messages: Message[];
    events: TraceEvent[];
    tokenUsage?: TokenUsage;
    costUsd?: number;
    durationMs?: number;
    startTime?: string;
    endTime?: string;
}
/** What a code grader, a custom assertion and a prompt template receive. */
export interface CodeGraderInput {
    /** What a good answer achieves, in words ('' when the test gives none). */
    criteria: string;
    /** The expected output as messages ([] when not given). */
    expectedOutput: Message[];
    /** The target's final answer, or null when it gave none. */
    output: string | null;
    /** The conversation: the input messages, then what the target produced. */
    messages: Message[];
    /** Set when the answer was too large to inline; `output` then reads it from this file. */
    outputPath?: string;
    /** Absolute paths of the test's input files. */
    inputFiles: string[];
    /** The messages sent to the target. */
    input: Message[];
    metadata: Record<string, unknown> | null;
    trace: Trace | null;
    traceSummary: TraceSummary | null;
    tokenUsage: TokenUsage | null;
    costUsd: number | null;
    durationMs: number | null;
    startTime: string | null;
    endTime: string | null;
    fileChanges: string | null;
    workspacePath: string | null;
    /** The grader's settings from the eval file, or null. */
    config: Record<string, unknown> | null;
    /** Fields of the payload this SDK does not name (camelCased) stay available. */
    [key: string]: unknown;
}
/** What a custom assertion receives: the same context as a code grader. */
export type AssertionContext = CodeGraderInput;
/** What a prompt template receives: the same context as a code grader. */
export type PromptTemplateInput = CodeGraderInput;
/** One check a grader made. */
export interface AssertionEntry {
    text: string;
    passed: boolean;
    evidence?: string;
}
/** A code grader's verdict. */
export interface CodeGraderResult {
    /** 0 to 1; values outside are clamped. */
    score: number;
    assertions?: AssertionEntry[];
    /** Why this score (shown in agentv's reports). */
    reasoning?: string;
    /** Any JSON object; copied to the results record. */
    details?: Record<string, unknown>;
}
/** A custom assertion's verdict: `score`, else `pass` (1 or 0), else 0. */
export interface AssertionScore {
    pass?: boolean;
    score?: number;
    assertions?: AssertionEntry[];
    reasoning?: string;
    details?: Record<string, unknown>;
}
export type CodeGraderHandler = (input: CodeGraderInput) => CodeGraderResult | Promise<CodeGraderResult>;
export type AssertionHandler = (ctx: AssertionContext) => AssertionScore | Promise<AssertionScore>;
export type PromptTemplateHandler = (input: PromptTemplateInput) => string | Promise<string>;
/** Type names of the built-in assertions; any other string names a custom one. */
export type AssertionType = 'llm-grader' | 'code-grader' | 'rubrics' | 'composite' | 'tool-trajectory' | 'field-accuracy' | 'latency' | 'cost' | 'token-usage' | 'execution-metrics' | 'skill-trigger' | 'contains' | 'contains-any' | 'contains-all' | 'icontains' | 'icontains-any' | 'icontains-all' | 'starts-with' | 'ends-with' | 'equals' | 'regex' | 'is-json' | (string & {});
