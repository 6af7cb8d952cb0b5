package agentv5

import (
	"github.com/agentv/action/suite"
	"math"
	"slices"

	yaml "go.yaml.in/yaml/v4"
)

// AgentV 5.x reads the execution-metric assertions by its own keys and skips, with a warning,
// an entry it cannot use (loaders/grader-parser.ts:1194-1310 at v5.3.1-next.1): `cost` takes
// only `budget` (promptfoo's `threshold` on cost is dropped), `latency` only `threshold`, each
// a number >= 0; `token-usage` keeps the limits among max_total, max_input, max_output (or
// their camelCase) that are finite numbers >= 0 and needs one.

// v5MetricLimits are each metric type's limit keys, in 5.x's order of reading.
var v5MetricLimits = map[string][][2]string{
	"cost":        {{"budget"}},
	"latency":     {{"threshold"}},
	"token-usage": {{"max_total", "maxTotal"}, {"max_input", "maxInput"}, {"max_output", "maxOutput"}},
}

// v5MetricEntry returns the entry n of a metric type as 5.x keeps it: without the limits it
// drops, or nil when it skips the whole entry (warned). Other types pass through.
func (l *reader) v5MetricEntry(n *yaml.Node, base, id string) *yaml.Node {
	limits, ok := v5MetricLimits[base]
	if !ok {
		return n
	}
	var other []string // the limit spellings 5.x does not read for this type
	for _, keys := range [][2]string{{"budget"}, {"threshold"}, {"max_cost_usd", "maxCostUsd"}, {"max_duration_ms", "maxDurationMs"}} {
		if !slices.Contains(limits, keys) {
			other = append(other, keys[0], keys[1])
		}
	}
	out := suite.Mapping(n)
	kept := 0
	for _, e := range suite.MapEntries(n) {
		switch {
		case e.Key != "" && slices.Contains(other, e.Key):
			l.Warnf(e.KeyNode, suite.KindIgnored, id, "%s %q is not read by AgentV 5.x (%s), ignored", base, e.Key, v5MetricKeysText(base))
			continue
		case e.Key != "" && slices.ContainsFunc(limits, func(k [2]string) bool { return k[0] == e.Key || k[1] == e.Key }):
			if f, isNum := suite.Number(e.Value); !isNum || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				l.Warnf(e.Value, suite.KindEvaluator, id, "%s %q must be a number >= 0, got %s: AgentV 5.x drops it", base, e.Key, suite.Describe(e.Value))
				continue
			}
			kept++
		}
		out.Content = append(out.Content, e.KeyNode, e.Value)
	}
	if kept == 0 {
		l.Warnf(n, suite.KindEvaluator, id, "%s assertion skipped, as AgentV 5.x skips it: it needs %s", base, v5MetricKeysText(base))
		return nil
	}
	return out
}

// v5MetricKeysText names the keys a metric type needs, for messages.
func v5MetricKeysText(base string) string {
	switch base {
	case "cost":
		return "`budget` (USD)"
	case "latency":
		return "`threshold` (milliseconds)"
	}
	return "one of `max_total`, `max_input`, `max_output`"
}
