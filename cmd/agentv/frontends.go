package main

// Every dialect reads: suite reads AgentV 2.5 and 4.x itself, and the front-ends of AgentV 5.x
// and promptfoo register from their packages (TestFrontEndsRegistered fails without this).
import _ "github.com/agentv/action/suite/frontends"
