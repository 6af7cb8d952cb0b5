package agentv5

import (
	"fmt"
	"github.com/agentv/action/suite"
	"math"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

var (
	v5RepeatKeys = []string{"count", "strategy", "early_exit", "cost_limit_usd"}
	// v5Strategies maps 5.x repeat strategies onto ours: pass_any is our pass_at_k.
	v5Strategies = map[string]string{"pass_any": suite.TrialsPassAtK, "pass_all": suite.TrialsPassAll,
		"mean": suite.TrialsMean, "confidence_interval": suite.TrialsConfidenceInterval}
)

// v5Repeat reads evaluate_options.repeat into the suite's trials; a bad value stops the file
// (5.3.1-next.1 refuses it when the file loads).
func (l *reader) v5Repeat(x *suite.Entry) bool {
	t, ok := v5RepeatOf(x, "evaluate_options.repeat", func(at *yaml.Node, msg string) {
		l.Errorf(at, suite.KindStructure, "", "%s", msg)
	})
	if ok {
		l.Suite.Trials = t
	}
	return ok
}

// v5RepeatOf reads a 5.x `repeat` (evaluate_options.repeat, a test's run.repeat): a count,
// which means pass_any, or {count, strategy, early_exit, cost_limit_usd} (experiment.ts at
// v5.3.1-next.1, readRepeat). early_exit is always set: 5.x stops early only when it is true,
// whatever the strategy. where names the key in messages; bad reports each problem.
func v5RepeatOf(x *suite.Entry, where string, bad func(at *yaml.Node, msg string)) (*suite.Trials, bool) {
	ok := true
	fail := func(at *yaml.Node, format string, args ...any) {
		bad(at, where+" "+fmt.Sprintf(format, args...))
		ok = false
	}
	count := func(n *yaml.Node) int {
		v, num := suite.Number(n)
		if !num || v != math.Trunc(v) || v < 1 || v > suite.MaxTrials {
			fail(n, "count must be a whole number from 1 to %d, got %s", suite.MaxTrials, suite.Describe(n))
			return 0
		}
		return int(v)
	}
	early := false
	t := &suite.Trials{Strategy: suite.TrialsPassAtK, EarlyExit: &early}
	v := suite.Deref(x.Value)
	switch {
	case v == nil || suite.IsNull(v):
		fail(x.KeyNode, "must be a count or a mapping with count and strategy, got nothing")
	case v.Kind == yaml.ScalarNode:
		t.Count = count(v)
	case v.Kind == yaml.MappingNode:
		for _, r := range suite.MapEntries(v) {
			switch r.Key {
			case "count":
				t.Count = count(r.Value)
			case "strategy":
				if s, known := v5Strategies[r.Value.Value]; r.Value.Kind == yaml.ScalarNode && known {
					t.Strategy = s
				} else {
					fail(r.Value, "strategy must be one of pass_any, pass_all, mean, confidence_interval, got %s", suite.Describe(r.Value))
				}
			case "early_exit":
				if c := suite.Classify(r.Value); r.Value.Kind != yaml.ScalarNode || c != suite.ScalarBool {
					fail(r.Value, "early_exit must be true or false, got %s", suite.Describe(r.Value))
				} else {
					early = strings.EqualFold(r.Value.Value, "true")
				}
			case "cost_limit_usd":
				// 0 is accepted and sets no limit, as in 5.x (costLimitUsd is tested for truth).
				if c, num := suite.Number(r.Value); num && c >= 0 && !math.IsInf(c, 0) {
					t.CostUSD = c
				} else {
					fail(r.Value, "cost_limit_usd must be a number of US dollars, got %s", suite.Describe(r.Value))
				}
			default:
				msg := fmt.Sprintf("has no key %q: write count, strategy, early_exit or cost_limit_usd", r.Key)
				if s := suite.Suggest(r.Key, v5RepeatKeys); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				fail(r.KeyNode, "%s", msg)
			}
		}
		if ok && t.Count == 0 {
			fail(x.KeyNode, "needs %q: how many times each test runs", "count")
		}
	default:
		fail(v, "must be a count or a mapping with count and strategy, got %s", suite.KindName(v))
	}
	if !ok {
		return nil, false
	}
	return t, true
}

// v5DefaultRepeat checks default_test's options.repeat, which every test takes unless its own
// options set one (yaml-parser.ts:727-752, mergeDefaultTestOptionsIntoCases).
func (l *reader) v5DefaultRepeat(options *yaml.Node) bool {
	x := suite.EntryList(suite.MapEntries(options)).Get("repeat")
	if x == nil {
		return true
	}
	_, ok := v5RepeatOf(x, "default_test options.repeat", func(at *yaml.Node, msg string) {
		l.Errorf(at, suite.KindStructure, "", "%s", msg)
	})
	return ok
}

// v5OptionsRepeat is a test's options.repeat, else default_test's: it replaces the test's
// run.repeat (yaml-parser.ts:1574-1583 merges it last). nil when neither sets one; a bad
// default_test value was reported once, by v5DefaultRepeat.
func v5OptionsRepeat(sx *v5Suite, own *suite.Entry, fail func(*yaml.Node, string, ...any)) (*suite.Trials, bool) {
	if own != nil && !suite.IsNull(own.Value) {
		if own.Value.Kind != yaml.MappingNode {
			return nil, true // reported where options is read; 5.x then merges nothing
		}
		if x := suite.EntryList(suite.MapEntries(own.Value)).Get("repeat"); x != nil {
			return v5RepeatOf(x, "options.repeat", func(at *yaml.Node, msg string) { fail(at, "%s", msg) })
		}
	}
	if sx.options == nil || suite.IsNull(sx.options) {
		return nil, true
	}
	if x := suite.EntryList(suite.MapEntries(sx.options)).Get("repeat"); x != nil {
		return v5RepeatOf(x, "default_test options.repeat", func(*yaml.Node, string) {})
	}
	return nil, true
}
