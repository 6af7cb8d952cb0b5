/**
 * Types of the evaluation context as the `@agentv/sdk` helpers hand it to handlers: the field names
 * AgentV 4.x code graders, custom assertions and prompt templates use (`output`, `criteria`,
 * `expectedOutput`, `messages`, ...), every key camelCased as 4.x does.
 */
export {};
