// Package promptfoo is the front-end of promptfoo configs (`providers`, `defaultTest`,
// `tests[].description`). AgentV 5 modelled its suites on promptfoo's, so this front-end
// rewrites a config into the AgentV 5.x form, reads it with the 5.x front-end (agentv5.Read)
// and sets promptfoo's scoring rules. It registers with suite from init, asked before the 5.x
// front-end, whose files a config would otherwise pass for.
package promptfoo

import (
	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/suite"
)

func init() {
	suite.RegisterFrontEnd(suite.FrontEnd{
		Dialect: suite.DialectPromptfoo,
		Before:  suite.Dialect5,
		Detect:  func(r *suite.Reader, root *yaml.Node) (bool, bool) { return (&reader{r}).pfDetect(root), true },
		Load:    func(r *suite.Reader, root *yaml.Node) { (&reader{r}).loadPF(root) },
	})
}

// reader is one file's suite.Reader, read as a promptfoo config.
type reader struct{ *suite.Reader }
