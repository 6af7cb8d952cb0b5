// Package frontends registers every dialect front-end that lives outside package suite
// (AgentV 5.x, promptfoo). suite reads AgentV 2.5 and 4.x files by itself; a program or a
// test that loads 5.x files or promptfoo configs imports this package for its side effect:
//
//	import _ "github.com/agentv/action/suite/frontends"
//
// A new dialect's package is added here, and every reader of eval files reads it.
package frontends

import (
	_ "github.com/agentv/action/suite/agentv5"   // AgentV 5.x
	_ "github.com/agentv/action/suite/promptfoo" // promptfoo configs, read through agentv5
)
