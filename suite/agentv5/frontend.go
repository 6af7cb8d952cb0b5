// Package agentv5 is the front-end of AgentV 5.x eval files (`prompts`, `tests[].vars`,
// `assert`, `evaluate_options`): it tells a 5.x file from the older dialects and reads it
// into suite's model. It registers with suite from init; a program reads 5.x files once it
// imports this package (or suite/frontends, which imports every front-end).
package agentv5

import (
	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/suite"
)

func init() {
	suite.RegisterFrontEnd(suite.FrontEnd{
		Dialect: suite.Dialect5,
		Detect:  func(r *suite.Reader, root *yaml.Node) (bool, bool) { return (&reader{Reader: r}).v5Detect(root) },
		Load:    func(r *suite.Reader, root *yaml.Node) { Read(r, root) },
	})
}

// reader is one file's suite.Reader with what the 5.x reader adds.
type reader struct {
	*suite.Reader
	// accept are promptfoo assertion types AgentV 5.x refuses that the caller's dialect runs
	// (a promptfoo config read through this front-end).
	accept []string
}

// Read reads root, the top-level mapping of r's file, as an AgentV 5.x file. accept names
// promptfoo assertion types 5.x itself refuses that are taken all the same: a promptfoo
// config, rewritten into 5.x's form, is read here with promptfoo's own types.
func Read(r *suite.Reader, root *yaml.Node, accept ...string) {
	(&reader{Reader: r, accept: accept}).loadV5(root)
}

// ReadMapping reads a YAML file referenced from r's file (at node at) whose root must be a
// mapping; nil after an error.
func ReadMapping(r *suite.Reader, at *yaml.Node, rel, what string) *yaml.Node {
	return (&reader{Reader: r}).v5ReadMapping(at, rel, what)
}
