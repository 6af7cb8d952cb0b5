package evaluators

// These tests load AgentV 5.x files and promptfoo configs, whose front-ends register from
// their own packages.
import _ "github.com/agentv/action/suite/frontends"
