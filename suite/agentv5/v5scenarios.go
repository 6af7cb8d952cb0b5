package agentv5

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentv/action/suite"

	yaml "go.yaml.in/yaml/v4"
)

// v5ScenarioKeys are the keys of one `scenarios` entry (eval-file.schema.ts, ScenarioSchema).
var v5ScenarioKeys = []string{"description", "config", "tests"}

// v5ScenarioRemoved are row keys 5.x refuses in a scenario's config and tests
// (yaml-parser.ts, rejectRemovedScenarioRowFields), beyond a test's own refusals.
var v5ScenarioRemoved = map[string]string{
	"eval_cases":    "write the fields in the row itself",
	"evalcases":     "write the fields in the row itself",
	"postprocess":   `write "transform" under options`,
	"preprocessors": `write "transform" under options`,
}

// v5Scenarios reads `scenarios`: each scenario's tests are run once per entry of its config,
// each pair lowered into one test after the file's own tests (yaml-parser.ts,
// lowerScenariosIntoTests). It returns the lowered tests, nil after an error: 5.x then runs
// nothing of the file.
func (l *reader) v5Scenarios(e *suite.Entry) ([]*yaml.Node, bool) {
	if suite.IsNull(e.Value) {
		return nil, true
	}
	if e.Value.Kind != yaml.SequenceNode {
		l.Errorf(e.Value, suite.KindStructure, "", "%q must be a list of scenarios, each with config and tests, got %s", "scenarios", suite.KindName(e.Value))
		return nil, false
	}
	var out []*yaml.Node
	ok := true
	for si, item := range e.Value.Content {
		where := fmt.Sprintf("scenarios[%d]", si)
		sc := suite.Deref(item)
		if sc == nil || sc.Kind != yaml.MappingNode {
			l.Errorf(item, suite.KindStructure, "", "%s must be a mapping with config and tests, got %s", where, suite.KindName(sc))
			ok = false
			continue
		}
		es := suite.MapEntries(sc)
		l.Dupes(es, "")
		l.UnknownKeys(es, "in "+where, "", v5ScenarioKeys)
		f := suite.EntryList(es)
		configs, cok := l.v5ScenarioRows(sc, f.Get("config"), where+".config")
		tests, tok := l.v5ScenarioRows(sc, f.Get("tests"), where+".tests")
		if !cok || !tok {
			ok = false
			continue
		}
		for ci, c := range configs {
			for ti, t := range tests {
				out = append(out, v5MergeScenarioRow(c, t, si, ci, ti, len(tests)))
			}
		}
	}
	if !ok {
		return nil, false
	}
	return out, true
}

// v5ScenarioRows checks one list of a scenario (config or tests): mappings without the keys
// 5.x refuses in them.
func (l *reader) v5ScenarioRows(sc *yaml.Node, e *suite.Entry, where string) ([]*yaml.Node, bool) {
	if e == nil || e.Value.Kind != yaml.SequenceNode {
		at := sc
		got := "nothing"
		if e != nil {
			at, got = e.Value, suite.KindName(e.Value)
		}
		l.Errorf(at, suite.KindStructure, "", "%s must be a list of test fields, got %s", where, got)
		return nil, false
	}
	ok := true
	var rows []*yaml.Node
	for i, item := range e.Value.Content {
		row := suite.Deref(item)
		if row == nil || row.Kind != yaml.MappingNode {
			l.Errorf(item, suite.KindStructure, "", "%s[%d] must be a mapping of test fields, got %s", where, i, suite.KindName(row))
			ok = false
			continue
		}
		for _, x := range suite.MapEntries(row) {
			if hint, bad := v5ScenarioRemoved[x.Key]; bad {
				l.Errorf(x.KeyNode, suite.KindStructure, "", "%s[%d] %q has been removed in AgentV 5.x: %s", where, i, x.Key, hint)
				ok = false
			}
		}
		if a := suite.ValueOf(row, "assert"); a != nil && a.Kind == yaml.SequenceNode {
			for j, it := range a.Content {
				for _, key := range []string{"postprocess", "preprocessors"} {
					if k := keyNode(suite.Deref(it), key); k != nil {
						l.Errorf(k, suite.KindStructure, "", "%s[%d].assert[%d] %q has been removed in AgentV 5.x: %s", where, i, j, key, v5ScenarioRemoved[key])
						ok = false
					}
				}
			}
		}
		rows = append(rows, row)
	}
	return rows, ok
}

// v5MergeScenarioRow lowers one config row and one test row into a test: the test's fields
// over the config's, vars, metadata, options and run merged key by key, assert lists joined
// (the config's first), and an id (yaml-parser.ts, mergeScenarioTestRows): the test's, else
// the config's (suffixed per test when the scenario has several), else scenario-I-J-K.
func v5MergeScenarioRow(config, test *yaml.Node, si, ci, ti, count int) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: test.Line, Column: test.Column}
	set := func(k, v *yaml.Node) { *m = *replaceOrAdd(m, k, v) }
	for _, row := range []*yaml.Node{config, test} {
		for _, x := range suite.MapEntries(row) {
			set(x.KeyNode, x.Value)
		}
	}
	for _, key := range []string{"vars", "metadata", "options", "run"} {
		merged := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: test.Line, Column: test.Column}
		var keyAt *yaml.Node
		for _, row := range []*yaml.Node{config, test} {
			k := keyNode(row, key)
			v := suite.Deref(suite.ValueOf(row, key))
			if k == nil || v == nil || v.Kind != yaml.MappingNode {
				continue
			}
			keyAt = k
			for _, x := range suite.MapEntries(v) {
				merged = replaceOrAdd(merged, x.KeyNode, x.Value)
			}
		}
		if keyAt != nil && len(merged.Content) > 0 {
			merged.Line, merged.Column = keyAt.Line, keyAt.Column
			set(keyAt, merged)
		}
	}
	var asserts []*yaml.Node
	var assertAt *yaml.Node
	for _, row := range []*yaml.Node{config, test} {
		k := keyNode(row, "assert")
		v := suite.Deref(suite.ValueOf(row, "assert"))
		switch {
		case k == nil || v == nil:
			continue
		case v.Kind == yaml.SequenceNode:
			asserts = append(asserts, v.Content...)
		default:
			asserts = append(asserts, v)
		}
		assertAt = k
	}
	if assertAt != nil && len(asserts) > 0 {
		set(assertAt, suite.SeqNode(assertAt, asserts...))
	}
	id := ""
	switch tid, cid := suite.ValueOf(test, "id"), suite.ValueOf(config, "id"); {
	case tid != nil && suite.IsString(tid) && strings.TrimSpace(tid.Value) != "":
		return m // the test's own id, as written
	case cid != nil && suite.IsString(cid) && strings.TrimSpace(cid.Value) != "" && count > 1:
		id = fmt.Sprintf("%s__scenario_test_%d", cid.Value, ti+1)
	case cid != nil && suite.IsString(cid) && strings.TrimSpace(cid.Value) != "":
		id = cid.Value
	default:
		id = fmt.Sprintf("scenario-%d-%d-%d", si+1, ci+1, ti+1)
	}
	idAt := keyNode(test, "id")
	if idAt == nil {
		idAt = test
	}
	set(suite.StrNode(idAt, "id"), suite.StrNode(idAt, id))
	return m
}

// keyNode is the key node of key in mapping m, nil if m is not a mapping or lacks it.
func keyNode(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	i := slices.IndexFunc(suite.MapEntries(m), func(e suite.Entry) bool { return e.Key == key })
	if i < 0 {
		return nil
	}
	return suite.MapEntries(m)[i].KeyNode
}
