package promptfoo

import (
	"encoding/json"
	"fmt"
	"github.com/agentv/action/suite"
	"github.com/agentv/action/suite/agentv5"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

var (
	// pfMarkers are top-level keys only a promptfoo config has: with one of them (or the name
	// promptfooconfig.yaml) a file is read as promptfoo.
	pfMarkers = []string{"providers", "defaultTest", "derivedMetrics", "nunjucksFilters", "evaluateOptions",
		"redteam", "scenarios", "outputPath", "writeLatestResults", "sharing"}
	// pfTopKeys are the top-level keys of the supported subset.
	pfTopKeys = []string{"description", "providers", "prompts", "tests", "defaultTest"}
	// pfTestKeys are the test keys of the supported subset.
	pfTestKeys = []string{"description", "vars", "assert", "threshold", "options", "metadata"}
	// pfDefaultKeys are the defaultTest keys of the supported subset.
	pfDefaultKeys = []string{"vars", "assert", "threshold", "options", "metadata"}
	// pfAssertKeys are the assertion keys of the supported subset.
	pfAssertKeys = []string{"type", "value", "weight", "threshold", "transform", "provider", "assert"}
	// pfTypes are the assertion types of the supported subset (each also with not-).
	pfTypes = []string{"contains", "icontains", "equals", "regex", "starts-with", "is-json", "contains-json",
		"javascript", "python", "llm-rubric", "similar", "assert-set"}
	// pfOnlyTypes are the types of the subset that AgentV 5.x itself refuses (its
	// UNSUPPORTED_PROMPTFOO_ASSERTION_TYPES): the 5.x reader takes them in promptfoo configs only.
	pfOnlyTypes = []string{"contains-json"}
)

// pfDetect reports whether root is a promptfoo config: named promptfooconfig.yaml (or .yml),
// or holding a key only promptfoo has.
func (l *reader) pfDetect(root *yaml.Node) bool {
	base := strings.ToLower(filepath.Base(l.Suite.Abs))
	if base == "promptfooconfig.yaml" || base == "promptfooconfig.yml" {
		return true
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		// `scenarios` is an AgentV 5.x key too: beside 5.x's own keys it is 5.x's.
		if slices.Contains(pfMarkers, k) && (k != "scenarios" || !pfHasV5Key(root)) {
			return true
		}
	}
	return false
}

// pfHasV5Key reports whether root has a top-level key only AgentV 5.x files have.
func pfHasV5Key(root *yaml.Node) bool {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if slices.Contains([]string{"default_test", "evaluate_options", "target", "targets", "threshold", "environment", "extensions"}, root.Content[i].Value) {
			return true
		}
	}
	return false
}

// loadPF reads a promptfoo config: it checks the keys against the supported subset (one
// positioned error naming each key outside it), rewrites the config as the AgentV 5.x file
// it means and reads that with agentv5.Read, then sets promptfoo's rules.
func (l *reader) loadPF(root *yaml.Node) {
	l.Suite.OwnTargets = true // a config's providers are its targets; no targets file is read
	v5 := suite.Mapping(root)
	ok := true
	var defaultTest, tests *suite.Entry
	for _, e := range suite.MapEntries(root) {
		switch e.Key {
		case "description", "prompts":
			v5.Content = append(v5.Content, e.KeyNode, e.Value)
		case "providers":
			ok = l.pfProviders(e.Value) && ok
		case "defaultTest":
			d := e
			defaultTest = &d
		case "tests":
			t := e
			tests = &t
		default:
			l.Errorf(e.KeyNode, suite.KindStructure, "", "promptfoo %q is not supported: agentv reads the top-level keys %s", e.Key, strings.Join(pfTopKeys, ", "))
			ok = false
		}
	}
	graders := map[string]string{} // provider id → grader target name
	var defThreshold, defAsserts *yaml.Node
	if defaultTest != nil && !suite.IsNull(defaultTest.Value) {
		d, thr, asserts, good := l.pfDefaultTest(defaultTest, graders)
		ok = good && ok
		defThreshold, defAsserts = thr, asserts
		if d != nil {
			v5.Content = append(v5.Content, suite.StrNode(defaultTest.KeyNode, "default_test"), d)
		}
	}
	switch {
	case tests == nil:
	case suite.IsNull(tests.Value):
		v5.Content = append(v5.Content, tests.KeyNode, tests.Value)
	case tests.Value.Kind != yaml.SequenceNode:
		l.Errorf(tests.Value, suite.KindStructure, "", "promptfoo %q must be a list of tests: tests from files (CSV, JSON, YAML, file://…) are not supported", "tests")
		ok = false
	default:
		list := suite.SeqNode(tests.Value)
		for i, t := range tests.Value.Content {
			if n, good := l.pfTest(suite.Deref(t), i, defThreshold, defAsserts, graders); good {
				list.Content = append(list.Content, n)
			} else {
				ok = false
			}
		}
		v5.Content = append(v5.Content, tests.KeyNode, list)
	}
	if tests == nil {
		l.Errorf(&yaml.Node{Line: root.Line, Column: root.Column}, suite.KindStructure, "", "missing %q: a promptfoo config needs a list of tests", "tests")
		ok = false
	}
	if !ok {
		// One error per key outside the subset is enough; reading the rest as 5.x would only
		// add messages about the same keys in 5.x's words.
		l.Suite.SetDialect(suite.DialectPromptfoo)
		l.pfRules()
		return
	}
	targets, target := l.Suite.Targets, l.Suite.Target
	agentv5.Read(l.Reader, v5, pfOnlyTypes...) // with promptfoo's own types (pfOnlyTypes)
	l.Suite.Targets, l.Suite.Target = targets, target
	l.Suite.SetDialect(suite.DialectPromptfoo)
	l.pfRules()
}

// pfRules sets promptfoo's rules on the suite: its graders are AgentV 5.x's (4.42.4's runtime).
func (l *reader) pfRules() {
	l.Suite.TrialPassAt = suite.TrialPassAt4
	l.Suite.Agent = suite.AgentRules{CwdFromWorkDir: true, AbsoluteFileRefs: true, PromptAs442: true}
	l.Suite.Grading = suite.GradingRulesOf(suite.Dialect5)
	l.Suite.Grading.ScoresAsReturned = true
	l.Suite.Grading.ZeroWeightPasses = true
	l.Suite.Grading.NegateScriptVerdict = true
	l.Suite.Grading.VerdictOfResults = true
	l.Suite.Grading.NoGradersPass = true
	l.Suite.Grading.PromptfooRubric = true
	l.Suite.Grading.GraderErrorFails = true
	l.Suite.Grading.SimilarCosine = true
	l.Suite.Grading.SetMembersNegate = true
	l.Suite.Grading.PythonObjectThreshold = true
	l.Suite.Grading.PromptfooJSBody = true
	l.Suite.Grading.SimilarValues = true
	l.Suite.Grading.JSONSchemaValue = true
	l.Suite.Grading.ContextVars = true
}

// pfDefaultTest rewrites `defaultTest` as 5.x's default_test. Its threshold (for the tests
// without one) and its assertions are returned: promptfoo scores the default's assertions
// first, then the test's, all rendered with the test's vars (evaluator.js,
// prepareTestCaseForEval), so they go into each test rather than to 5.x's default_test.
func (l *reader) pfDefaultTest(e *suite.Entry, graders map[string]string) (d, thr, asserts *yaml.Node, ok bool) {
	if e.Value.Kind != yaml.MappingNode {
		l.Errorf(e.Value, suite.KindStructure, "", "promptfoo %q must be a mapping with %s, got %s", "defaultTest", strings.Join(pfDefaultKeys, ", "), suite.KindName(e.Value))
		return nil, nil, nil, false
	}
	out := suite.Mapping(e.Value)
	ok = true
	for _, x := range suite.MapEntries(e.Value) {
		switch x.Key {
		case "vars", "metadata":
			out.Content = append(out.Content, x.KeyNode, x.Value)
		case "assert":
			items, good := l.pfAsserts(x.Value, "", graders, "")
			ok = good && ok
			asserts = items
		case "options":
			opts, grader, good := l.pfOptions(x.Value, "", graders)
			ok = good && ok
			if grader != "" {
				graders[""] = grader
			}
			if opts != nil {
				out.Content = append(out.Content, x.KeyNode, opts)
			}
		case "threshold":
			thr = x.Value
		default:
			l.Errorf(x.KeyNode, suite.KindStructure, "", "promptfoo defaultTest %q is not supported: agentv reads %s", x.Key, strings.Join(pfDefaultKeys, ", "))
			ok = false
		}
	}
	// The default grader holds for the default's assertions too: name it on each.
	if g := graders[""]; g != "" {
		pfSetGrader(asserts, g)
	}
	return out, thr, asserts, ok
}

// pfTest rewrites one promptfoo test as a 5.x test: its description is its id (else its
// position, test-N), its threshold (or the default's) run.threshold.
func (l *reader) pfTest(n *yaml.Node, i int, defThreshold, defAsserts *yaml.Node, graders map[string]string) (*yaml.Node, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		l.Errorf(n, suite.KindCase, "", "tests[%d]: a promptfoo test must be a mapping with description, vars and assert, got %s", i, suite.KindName(n))
		return nil, false
	}
	id := fmt.Sprintf("test-%d", i+1)
	if d := suite.ValueOf(n, "description"); d != nil && suite.IsString(d) && strings.TrimSpace(d.Value) != "" {
		id = strings.TrimSpace(d.Value)
	}
	out := suite.Mapping(n, "id", suite.StrNode(n, id))
	thr := defThreshold
	ok := true
	grader := graders[""]
	if o := suite.ValueOf(n, "options"); o != nil && o.Kind == yaml.MappingNode {
		if p := suite.ValueOf(o, "provider"); p != nil {
			g, good := l.pfGrader(p, graders)
			ok = good && ok
			grader = g
		}
	}
	content := false
	var own *yaml.Node
	for _, x := range suite.MapEntries(n) {
		switch x.Key {
		case "description":
		case "vars":
			content = true
			if x.Value.Kind == yaml.MappingNode {
				for _, v := range suite.MapEntries(x.Value) {
					if d := suite.Deref(v.Value); d != nil && d.Kind == yaml.SequenceNode {
						l.Errorf(v.KeyNode, suite.KindCase, id, "promptfoo var %q is a list: running a test once per value is not supported (case not loaded)", v.Key)
						ok = false
					}
				}
			}
			out.Content = append(out.Content, x.KeyNode, x.Value)
		case "metadata":
			content = true
			out.Content = append(out.Content, x.KeyNode, x.Value)
		case "assert":
			content = true
			items, good := l.pfAsserts(x.Value, id, graders, grader)
			ok = good && ok
			own = items
		case "options":
			content = true
			opts, _, good := l.pfOptions(x.Value, id, graders)
			ok = good && ok
			if opts != nil {
				out.Content = append(out.Content, x.KeyNode, opts)
			}
		case "threshold":
			content = true
			thr = x.Value
		default:
			l.Errorf(x.KeyNode, suite.KindCase, id, "promptfoo test %q is not supported: agentv reads %s (case not loaded)", x.Key, strings.Join(pfTestKeys, ", "))
			ok = false
		}
	}
	if !content && ok {
		// promptfoo rejects a test with nothing but a description (main.js, readTest).
		l.Errorf(n, suite.KindCase, id, "a promptfoo test needs one of vars, assert, options, metadata or threshold (case not loaded)")
		ok = false
	}
	if all := pfJoin(n, defAsserts, own); all != nil {
		out.Content = append(out.Content, suite.StrNode(all, "assert"), all)
	} else {
		// No assertions: promptfoo scores the test 1 and passes it
		// (AssertionsResult.noAssertsResult), which GradingRules.NoGradersPass does.
		out.Content = append(out.Content, suite.StrNode(n, "assert"), suite.SeqNode(n))
	}
	if thr != nil && !suite.IsNull(thr) {
		out.Content = append(out.Content, suite.StrNode(thr, "run"), suite.Mapping(thr, "threshold", thr))
	}
	if !suite.HasKey(out, "vars") {
		// promptfoo renders every prompt, with empty vars when a test has none.
		out.Content = append(out.Content, suite.StrNode(n, "vars"), suite.Mapping(n))
	}
	return out, ok
}

// pfOptions checks a test's (or defaultTest's) options: `provider` names the grader of its
// model-graded assertions (returned, and left out of the 5.x options); the rest go to 5.x.
func (l *reader) pfOptions(m *yaml.Node, id string, graders map[string]string) (*yaml.Node, string, bool) {
	if suite.IsNull(m) {
		return nil, "", true
	}
	if m.Kind != yaml.MappingNode {
		l.Errorf(m, suite.KindCase, id, "promptfoo %q must be a mapping, got %s", "options", suite.KindName(m))
		return nil, "", false
	}
	out := suite.Mapping(m)
	grader := ""
	ok := true
	for _, x := range suite.MapEntries(m) {
		switch x.Key {
		case "provider":
			g, good := l.pfGrader(x.Value, graders)
			grader, ok = g, good && ok
		case "transform", "postprocess":
			out.Content = append(out.Content, x.KeyNode, x.Value)
		default:
			l.Errorf(x.KeyNode, suite.KindCase, id, "promptfoo options %q is not supported: agentv reads provider and transform", x.Key)
			ok = false
		}
	}
	if len(out.Content) == 0 {
		return nil, grader, ok
	}
	return out, grader, ok
}

// pfAsserts checks a promptfoo assert list and names its model-graded assertions' grader.
func (l *reader) pfAsserts(list *yaml.Node, id string, graders map[string]string, grader string) (*yaml.Node, bool) {
	if suite.IsNull(list) {
		return list, true
	}
	if list.Kind != yaml.SequenceNode {
		l.Errorf(list, suite.KindCase, id, "promptfoo %q must be a list of assertions, got %s", "assert", suite.KindName(list))
		return list, false
	}
	out := suite.SeqNode(list)
	ok := true
	for _, it := range list.Content {
		a, good := l.pfAssert(suite.Deref(it), id, graders, grader, 0)
		ok = good && ok
		if a != nil {
			out.Content = append(out.Content, a)
		}
	}
	return out, ok
}

// pfAssert checks one assertion against the subset; an llm-rubric's grader (its own
// provider, else the test's or the default's) becomes its 5.x `target`.
func (l *reader) pfAssert(n *yaml.Node, id string, graders map[string]string, grader string, depth int) (*yaml.Node, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		l.Errorf(n, suite.KindEvaluator, id, "a promptfoo assertion must be a mapping with %q, got %s", "type", suite.KindName(n))
		return nil, false
	}
	t := suite.Deref(suite.ValueOf(n, "type"))
	if t == nil || !suite.IsString(t) {
		l.Errorf(n, suite.KindEvaluator, id, "a promptfoo assertion needs a %q", "type")
		return nil, false
	}
	base := strings.TrimPrefix(t.Value, "not-")
	if !slices.Contains(pfTypes, base) {
		l.Errorf(t, suite.KindEvaluator, id, "promptfoo assertion type %q is not supported: agentv reads %s (each also with not-)", t.Value, strings.Join(pfTypes, ", "))
		return nil, false
	}
	out := suite.Mapping(n)
	ok := true
	own := grader
	for _, x := range suite.MapEntries(n) {
		switch {
		case x.Key == "provider":
			g, good := l.pfGrader(x.Value, graders)
			own, ok = g, good && ok
			continue
		case x.Key == "assert" && base == "assert-set" && depth < 8:
			items := suite.SeqNode(x.Value)
			if x.Value.Kind == yaml.SequenceNode {
				for _, m := range x.Value.Content {
					a, good := l.pfAssert(suite.Deref(m), id, graders, grader, depth+1)
					ok = good && ok
					if a != nil {
						items.Content = append(items.Content, pfNegated(a))
					}
				}
			}
			out.Content = append(out.Content, x.KeyNode, items)
			continue
		case x.Key == "value" && (base == "is-json" || base == "contains-json") && pfFileRef(x.Value) != "":
			// A JSON schema from a file: promptfoo loads a .json or .yaml file:// value as the
			// schema itself (processFileReference).
			rel := pfFileRef(x.Value)
			switch strings.ToLower(filepath.Ext(rel)) {
			case ".json", ".yaml", ".yml":
			default:
				l.Errorf(x.Value, suite.KindEvaluator, id, "%s %q: a JSON schema file must be .json, .yaml or .yml", t.Value, suite.Deref(x.Value).Value)
				ok = false
				continue
			}
			m := agentv5.ReadMapping(l.Reader, x.Value, rel, "JSON schema")
			if m == nil {
				ok = false
				continue
			}
			out.Content = append(out.Content, x.KeyNode, m)
			continue
		case x.Key == "value" && base == "javascript" && pfNotCode(x.Value):
			out.Content = append(out.Content, x.KeyNode, pfThrowAtRun(x.Value))
			continue
		case x.Key == "value" && base == "similar" && suite.Deref(x.Value).Kind == yaml.SequenceNode:
			first, good := l.pfSimilarValues(suite.Deref(x.Value), id)
			if !good {
				ok = false
				continue
			}
			// The first value stands for the list where one value is read; the grader takes
			// the list from config.values (GradingRules.SimilarValues).
			out.Content = append(out.Content, x.KeyNode, first, suite.StrNode(x.KeyNode, "config"), suite.Mapping(x.Value, "values", suite.Deref(x.Value)))
			continue
		case !slices.Contains(pfAssertKeys, x.Key):
			l.Errorf(x.KeyNode, suite.KindEvaluator, id, "promptfoo assertion %q is not supported: agentv reads %s", x.Key, strings.Join(pfAssertKeys, ", "))
			ok = false
			continue
		}
		out.Content = append(out.Content, x.KeyNode, x.Value)
	}
	if own != "" && base == "llm-rubric" {
		out.Content = append(out.Content, suite.StrNode(n, "target"), suite.StrNode(n, own))
	}
	if t.Value == "not-llm-rubric" {
		// As llm-rubric with negate, so the 5.x reader keeps its text as the criteria (its
		// not-llm-rubric has none) and its threshold; negation then flips the verdict and
		// scores 1 - score (graders.js, invertScore).
		out = pfNegated(out)
	}
	return out, ok
}

// pfSetGrader names grader as the target of the llm-rubric assertions of list that have none.
func pfSetGrader(list *yaml.Node, grader string) {
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	for i, a := range list.Content {
		if t := suite.ValueOf(a, "type"); t != nil && strings.TrimPrefix(t.Value, "not-") == "llm-rubric" && !suite.HasKey(a, "target") {
			c := *a
			c.Content = append(slices.Clone(a.Content), suite.StrNode(a, "target"), suite.StrNode(a, grader))
			list.Content[i] = &c
		}
	}
}

// pfJoin is the default's assertions then the test's, nil when there are none.
func pfJoin(at, defaults, own *yaml.Node) *yaml.Node {
	var items []*yaml.Node
	for _, l := range []*yaml.Node{defaults, own} {
		if l != nil && l.Kind == yaml.SequenceNode {
			items = append(items, l.Content...)
		}
	}
	if len(items) == 0 {
		return nil
	}
	if own != nil {
		at = own
	}
	return suite.SeqNode(at, items...)
}

// pfNegated writes a set member's not-X as X with negate: true, which the set's members
// understand (GradingRules.SetMembersNegate); the test's own assertions go through 5.x's
// reading of not-.
func pfNegated(a *yaml.Node) *yaml.Node {
	t := suite.ValueOf(a, "type")
	rest, ok := strings.CutPrefix(t.Value, "not-")
	if !ok || suite.IsEvaluatorType(t.Value) {
		return a
	}
	out := suite.ReplaceKey(a, "type", "", suite.StrNode(t, rest))
	out.Content = append(out.Content, suite.StrNode(t, "negate"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true", Line: t.Line, Column: t.Column})
	return out
}

// pfNotCode reports whether a javascript value is neither a string nor null: a number, a
// boolean, a mapping or a list, which promptfoo loads and fails when the test runs.
func pfNotCode(v *yaml.Node) bool {
	v = suite.Deref(v)
	return v != nil && !suite.IsString(v) && !suite.IsNull(v)
}

// pfThrowAtRun is the code an assertion whose value is not code runs: it throws what
// promptfoo's handler throws there ("javascript assertion must have a string value",
// handleJavascript), so the assertion fails with score 0 when it runs, as in promptfoo,
// where a 5.x file gets a load error.
func pfThrowAtRun(v *yaml.Node) *yaml.Node {
	msg, _ := json.Marshal("javascript assertion must have a string value, got " + suite.DescribeValue(suite.Deref(v)))
	return suite.StrNode(v, "(() => { throw new Error("+string(msg)+") })()")
}

// pfSimilarValues checks the list of values of a similar assertion (promptfoo: at least one,
// each a string) and returns its first.
func (l *reader) pfSimilarValues(list *yaml.Node, id string) (*yaml.Node, bool) {
	if len(list.Content) == 0 {
		l.Errorf(list, suite.KindEvaluator, id, "similar %q must hold at least one text to compare the answer with", "value")
		return nil, false
	}
	for i, v := range list.Content {
		if v := suite.Deref(v); !suite.IsString(v) || strings.TrimSpace(v.Value) == "" {
			l.Errorf(v, suite.KindEvaluator, id, "similar value[%d] must be a non-empty text, got %s", i, suite.DescribeValue(v))
			return nil, false
		}
	}
	return suite.Deref(list.Content[0]), true
}

// pfFileRef is the path of a file:// value, "" for any other value.
func pfFileRef(v *yaml.Node) string {
	v = suite.Deref(v)
	if v == nil || !suite.IsString(v) {
		return ""
	}
	rel, ok := strings.CutPrefix(strings.TrimSpace(v.Value), "file://")
	if !ok {
		return ""
	}
	return rel
}
