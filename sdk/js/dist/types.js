/**
 * Types of the payload that agentv writes to the stdin of prompt templates and code judges,
 * as the SDK hands it to handlers.
 *
 * On the wire the payload's own keys are snake_case (`expected_output`, `tool_calls`); the SDK
 * renames those keys, and the keys of messages and tool calls, to camelCase. User data is never
 * renamed: message `content`, tool call `input`/`output`, message `metadata`, `config` and the
 * tool names inside `traceSummary` keep their keys exactly as written (`riskLevel`, `get_weather`).
 */
export {};
