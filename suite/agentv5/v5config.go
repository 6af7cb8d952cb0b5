package agentv5

import (
	"github.com/agentv/action/suite"
)

// v5ConfigBlocks are top-level keys 5.3.1-next.1's schema accepts in an eval file and nothing
// reads when it runs one: `graders` and `defaults` are blocks of the project config
// (.agentv/config.yaml; eval-file.schema.ts:902–903), and even there only checked
// (config-graph.ts, validateDefaultSelections), never used to pick a target or a judge.
// Each maps to what actually decides that, for the warning.
var v5ConfigBlocks = map[string]string{
	"graders":  "the judge of an llm-rubric is its own target, else the run target's grader_target",
	"defaults": "the run's target is the file's target or targets (or --target), and the judge the target's grader_target",
}

// v5Unread warns that a key the file may hold is not read, and says what decides instead.
func (l *reader) v5Unread(e *suite.Entry) {
	l.Warnf(e.KeyNode, suite.KindIgnored, "", "%q is not read from an eval file by AgentV 5.3.1-next.1 (ignored): %s", e.Key, v5ConfigBlocks[e.Key])
}
