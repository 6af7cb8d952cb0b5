package agentv5

import (
	"github.com/agentv/action/suite"
)

// v5DefaultThreshold reads default_test.threshold: the file's threshold, over the top-level
// one (run-eval.ts:1346 at v5.3.1-next.1, `defaultTest.threshold ?? suite.threshold`). As 5.x
// does, a bad value is warned about and not used, and one in a default_test file is not read
// (config-loader.ts:710-731 reads it from the eval file's own mapping only).
func (l *reader) v5DefaultThreshold(sx *v5Suite, x suite.Entry) {
	switch v, num := suite.Number(x.Value); {
	case suite.IsNull(x.Value):
	case sx.fileDefault != "":
		l.Warnf(x.KeyNode, suite.KindIgnored, "", "default_test %q in %s is not read by AgentV 5.3.1-next.1 (ignored): write it in the eval file's default_test or as its top-level threshold", x.Key, sx.fileDefault)
	case !num || v < 0 || v > 1:
		l.Warnf(x.Value, suite.KindIgnored, "", "default_test %q must be a number from 0 to 1, got %s (ignored)", x.Key, suite.Describe(x.Value))
	default:
		l.Suite.Threshold = &v
	}
}
