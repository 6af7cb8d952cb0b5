package suite

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// DialectPromptfoo is a promptfoo config (`providers`, `defaultTest`, `tests[].description`),
// read through the AgentV 5.x front-end: AgentV 5 modelled its suites on promptfoo's, so this
// front-end only renames promptfoo's keys into 5.x's, turns `providers` into the suite's own
// targets and sets promptfoo's scoring rules (docs/promptfoo.md).
const DialectPromptfoo = "promptfoo"

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
func (l *loader) pfDetect(root *yaml.Node) bool {
	base := strings.ToLower(filepath.Base(l.s.Abs))
	if base == "promptfooconfig.yaml" || base == "promptfooconfig.yml" {
		return true
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if slices.Contains(pfMarkers, root.Content[i].Value) {
			return true
		}
	}
	return false
}

// loadPF reads a promptfoo config: it checks the keys against the supported subset (one
// positioned error naming each key outside it), rewrites the config as the AgentV 5.x file
// it means and reads that with loadV5, then sets promptfoo's rules.
func (l *loader) loadPF(root *yaml.Node) {
	l.s.OwnTargets = true // a config's providers are its targets; no targets file is read
	v5 := mapping(root)
	ok := true
	var defaultTest, tests *kv
	for _, e := range entries(root) {
		switch e.key {
		case "description", "prompts":
			v5.Content = append(v5.Content, e.kn, e.v)
		case "providers":
			ok = l.pfProviders(e.v) && ok
		case "defaultTest":
			d := e
			defaultTest = &d
		case "tests":
			t := e
			tests = &t
		default:
			l.errorf(e.kn, KindStructure, "", "promptfoo %q is not supported: agentv reads the top-level keys %s", e.key, strings.Join(pfTopKeys, ", "))
			ok = false
		}
	}
	graders := map[string]string{} // provider id → grader target name
	var defThreshold, defAsserts *yaml.Node
	if defaultTest != nil && !isNull(defaultTest.v) {
		d, thr, asserts, good := l.pfDefaultTest(defaultTest, graders)
		ok = good && ok
		defThreshold, defAsserts = thr, asserts
		if d != nil {
			v5.Content = append(v5.Content, strNode(defaultTest.kn, "default_test"), d)
		}
	}
	switch {
	case tests == nil:
	case isNull(tests.v):
		v5.Content = append(v5.Content, tests.kn, tests.v)
	case tests.v.Kind != yaml.SequenceNode:
		l.errorf(tests.v, KindStructure, "", "promptfoo %q must be a list of tests: tests from files (CSV, JSON, YAML, file://…) are not supported", "tests")
		ok = false
	default:
		list := seqNode(tests.v)
		for i, t := range tests.v.Content {
			if n, good := l.pfTest(deref(t), i, defThreshold, defAsserts, graders); good {
				list.Content = append(list.Content, n)
			} else {
				ok = false
			}
		}
		v5.Content = append(v5.Content, tests.kn, list)
	}
	if tests == nil {
		l.errorf(&yaml.Node{Line: root.Line, Column: root.Column}, KindStructure, "", "missing %q: a promptfoo config needs a list of tests", "tests")
		ok = false
	}
	if !ok {
		// One error per key outside the subset is enough; reading the rest as 5.x would only
		// add messages about the same keys in 5.x's words.
		l.s.setDialect(DialectPromptfoo)
		l.pfRules()
		return
	}
	targets, target := l.s.Targets, l.s.Target
	l.pf = true // the 5.x reader then takes promptfoo's own types (pfOnlyTypes)
	l.loadV5(v5)
	l.s.Targets, l.s.Target = targets, target
	l.s.setDialect(DialectPromptfoo)
	l.pfRules()
}

// pfRules sets promptfoo's rules on the suite: its graders are AgentV 5.x's (4.42.4's runtime).
func (l *loader) pfRules() {
	l.s.TrialPassAt = TrialPassAt4
	l.s.Agent = AgentRules{CwdFromWorkDir: true, AbsoluteFileRefs: true, PromptAs442: true}
	l.s.Grading = GradingRulesOf(Dialect5)
	l.s.Grading.ScoresAsReturned = true
	l.s.Grading.ZeroWeightPasses = true
	l.s.Grading.NegateScriptVerdict = true
	l.s.Grading.VerdictOfResults = true
	l.s.Grading.NoGradersPass = true
	l.s.Grading.PromptfooRubric = true
	l.s.Grading.GraderErrorFails = true
	l.s.Grading.SimilarCosine = true
	l.s.Grading.SetMembersNegate = true
	l.s.Grading.PythonObjectThreshold = true
	l.s.Grading.PromptfooJSBody = true
	l.s.Grading.SimilarValues = true
	l.s.Grading.JSONSchemaValue = true
	l.s.Grading.ContextVars = true
}

// pfDefaultTest rewrites `defaultTest` as 5.x's default_test. Its threshold (for the tests
// without one) and its assertions are returned: promptfoo scores the default's assertions
// first, then the test's, all rendered with the test's vars (evaluator.js,
// prepareTestCaseForEval), so they go into each test rather than to 5.x's default_test.
func (l *loader) pfDefaultTest(e *kv, graders map[string]string) (d, thr, asserts *yaml.Node, ok bool) {
	if e.v.Kind != yaml.MappingNode {
		l.errorf(e.v, KindStructure, "", "promptfoo %q must be a mapping with %s, got %s", "defaultTest", strings.Join(pfDefaultKeys, ", "), kindName(e.v))
		return nil, nil, nil, false
	}
	out := mapping(e.v)
	ok = true
	for _, x := range entries(e.v) {
		switch x.key {
		case "vars", "metadata":
			out.Content = append(out.Content, x.kn, x.v)
		case "assert":
			items, good := l.pfAsserts(x.v, "", graders, "")
			ok = good && ok
			asserts = items
		case "options":
			opts, grader, good := l.pfOptions(x.v, "", graders)
			ok = good && ok
			if grader != "" {
				graders[""] = grader
			}
			if opts != nil {
				out.Content = append(out.Content, x.kn, opts)
			}
		case "threshold":
			thr = x.v
		default:
			l.errorf(x.kn, KindStructure, "", "promptfoo defaultTest %q is not supported: agentv reads %s", x.key, strings.Join(pfDefaultKeys, ", "))
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
func (l *loader) pfTest(n *yaml.Node, i int, defThreshold, defAsserts *yaml.Node, graders map[string]string) (*yaml.Node, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		l.errorf(n, KindCase, "", "tests[%d]: a promptfoo test must be a mapping with description, vars and assert, got %s", i, kindName(n))
		return nil, false
	}
	id := fmt.Sprintf("test-%d", i+1)
	if d := valueOf(n, "description"); d != nil && isString(d) && strings.TrimSpace(d.Value) != "" {
		id = strings.TrimSpace(d.Value)
	}
	out := mapping(n, "id", strNode(n, id))
	thr := defThreshold
	ok := true
	grader := graders[""]
	if o := valueOf(n, "options"); o != nil && o.Kind == yaml.MappingNode {
		if p := valueOf(o, "provider"); p != nil {
			g, good := l.pfGrader(p, graders)
			ok = good && ok
			grader = g
		}
	}
	content := false
	var own *yaml.Node
	for _, x := range entries(n) {
		switch x.key {
		case "description":
		case "vars":
			content = true
			if x.v.Kind == yaml.MappingNode {
				for _, v := range entries(x.v) {
					if d := deref(v.v); d != nil && d.Kind == yaml.SequenceNode {
						l.errorf(v.kn, KindCase, id, "promptfoo var %q is a list: running a test once per value is not supported (case not loaded)", v.key)
						ok = false
					}
				}
			}
			out.Content = append(out.Content, x.kn, x.v)
		case "metadata":
			content = true
			out.Content = append(out.Content, x.kn, x.v)
		case "assert":
			content = true
			items, good := l.pfAsserts(x.v, id, graders, grader)
			ok = good && ok
			own = items
		case "options":
			content = true
			opts, _, good := l.pfOptions(x.v, id, graders)
			ok = good && ok
			if opts != nil {
				out.Content = append(out.Content, x.kn, opts)
			}
		case "threshold":
			content = true
			thr = x.v
		default:
			l.errorf(x.kn, KindCase, id, "promptfoo test %q is not supported: agentv reads %s (case not loaded)", x.key, strings.Join(pfTestKeys, ", "))
			ok = false
		}
	}
	if !content && ok {
		// promptfoo rejects a test with nothing but a description (main.js, readTest).
		l.errorf(n, KindCase, id, "a promptfoo test needs one of vars, assert, options, metadata or threshold (case not loaded)")
		ok = false
	}
	if all := pfJoin(n, defAsserts, own); all != nil {
		out.Content = append(out.Content, strNode(all, "assert"), all)
	} else {
		// No assertions: promptfoo scores the test 1 and passes it
		// (AssertionsResult.noAssertsResult), which GradingRules.NoGradersPass does.
		out.Content = append(out.Content, strNode(n, "assert"), seqNode(n))
	}
	if thr != nil && !isNull(thr) {
		out.Content = append(out.Content, strNode(thr, "run"), mapping(thr, "threshold", thr))
	}
	if !hasKey(out, "vars") {
		// promptfoo renders every prompt, with empty vars when a test has none.
		out.Content = append(out.Content, strNode(n, "vars"), mapping(n))
	}
	return out, ok
}

// pfOptions checks a test's (or defaultTest's) options: `provider` names the grader of its
// model-graded assertions (returned, and left out of the 5.x options); the rest go to 5.x.
func (l *loader) pfOptions(m *yaml.Node, id string, graders map[string]string) (*yaml.Node, string, bool) {
	if isNull(m) {
		return nil, "", true
	}
	if m.Kind != yaml.MappingNode {
		l.errorf(m, KindCase, id, "promptfoo %q must be a mapping, got %s", "options", kindName(m))
		return nil, "", false
	}
	out := mapping(m)
	grader := ""
	ok := true
	for _, x := range entries(m) {
		switch x.key {
		case "provider":
			g, good := l.pfGrader(x.v, graders)
			grader, ok = g, good && ok
		case "transform", "postprocess":
			out.Content = append(out.Content, x.kn, x.v)
		default:
			l.errorf(x.kn, KindCase, id, "promptfoo options %q is not supported: agentv reads provider and transform", x.key)
			ok = false
		}
	}
	if len(out.Content) == 0 {
		return nil, grader, ok
	}
	return out, grader, ok
}

// pfAsserts checks a promptfoo assert list and names its model-graded assertions' grader.
func (l *loader) pfAsserts(list *yaml.Node, id string, graders map[string]string, grader string) (*yaml.Node, bool) {
	if isNull(list) {
		return list, true
	}
	if list.Kind != yaml.SequenceNode {
		l.errorf(list, KindCase, id, "promptfoo %q must be a list of assertions, got %s", "assert", kindName(list))
		return list, false
	}
	out := seqNode(list)
	ok := true
	for _, it := range list.Content {
		a, good := l.pfAssert(deref(it), id, graders, grader, 0)
		ok = good && ok
		if a != nil {
			out.Content = append(out.Content, a)
		}
	}
	return out, ok
}

// pfAssert checks one assertion against the subset; an llm-rubric's grader (its own
// provider, else the test's or the default's) becomes its 5.x `target`.
func (l *loader) pfAssert(n *yaml.Node, id string, graders map[string]string, grader string, depth int) (*yaml.Node, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		l.errorf(n, KindEvaluator, id, "a promptfoo assertion must be a mapping with %q, got %s", "type", kindName(n))
		return nil, false
	}
	t := deref(valueOf(n, "type"))
	if t == nil || !isString(t) {
		l.errorf(n, KindEvaluator, id, "a promptfoo assertion needs a %q", "type")
		return nil, false
	}
	base := strings.TrimPrefix(t.Value, "not-")
	if !slices.Contains(pfTypes, base) {
		l.errorf(t, KindEvaluator, id, "promptfoo assertion type %q is not supported: agentv reads %s (each also with not-)", t.Value, strings.Join(pfTypes, ", "))
		return nil, false
	}
	out := mapping(n)
	ok := true
	own := grader
	for _, x := range entries(n) {
		switch {
		case x.key == "provider":
			g, good := l.pfGrader(x.v, graders)
			own, ok = g, good && ok
			continue
		case x.key == "assert" && base == "assert-set" && depth < 8:
			items := seqNode(x.v)
			if x.v.Kind == yaml.SequenceNode {
				for _, m := range x.v.Content {
					a, good := l.pfAssert(deref(m), id, graders, grader, depth+1)
					ok = good && ok
					if a != nil {
						items.Content = append(items.Content, pfNegated(a))
					}
				}
			}
			out.Content = append(out.Content, x.kn, items)
			continue
		case x.key == "value" && (base == "is-json" || base == "contains-json") && pfFileRef(x.v) != "":
			// A JSON schema from a file: promptfoo loads a .json or .yaml file:// value as the
			// schema itself (processFileReference).
			rel := pfFileRef(x.v)
			switch strings.ToLower(filepath.Ext(rel)) {
			case ".json", ".yaml", ".yml":
			default:
				l.errorf(x.v, KindEvaluator, id, "%s %q: a JSON schema file must be .json, .yaml or .yml", t.Value, deref(x.v).Value)
				ok = false
				continue
			}
			m := l.v5ReadMapping(x.v, rel, "JSON schema")
			if m == nil {
				ok = false
				continue
			}
			out.Content = append(out.Content, x.kn, m)
			continue
		case x.key == "value" && base == "javascript" && pfNotCode(x.v):
			out.Content = append(out.Content, x.kn, pfThrowAtRun(x.v))
			continue
		case x.key == "value" && base == "similar" && deref(x.v).Kind == yaml.SequenceNode:
			first, good := l.pfSimilarValues(deref(x.v), id)
			if !good {
				ok = false
				continue
			}
			// The first value stands for the list where one value is read; the grader takes
			// the list from config.values (GradingRules.SimilarValues).
			out.Content = append(out.Content, x.kn, first, strNode(x.kn, "config"), mapping(x.v, "values", deref(x.v)))
			continue
		case !slices.Contains(pfAssertKeys, x.key):
			l.errorf(x.kn, KindEvaluator, id, "promptfoo assertion %q is not supported: agentv reads %s", x.key, strings.Join(pfAssertKeys, ", "))
			ok = false
			continue
		}
		out.Content = append(out.Content, x.kn, x.v)
	}
	if own != "" && base == "llm-rubric" {
		out.Content = append(out.Content, strNode(n, "target"), strNode(n, own))
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
		if t := valueOf(a, "type"); t != nil && strings.TrimPrefix(t.Value, "not-") == "llm-rubric" && !hasKey(a, "target") {
			c := *a
			c.Content = append(slices.Clone(a.Content), strNode(a, "target"), strNode(a, grader))
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
	return seqNode(at, items...)
}

// pfNegated writes a set member's not-X as X with negate: true, which the set's members
// understand (GradingRules.SetMembersNegate); the test's own assertions go through 5.x's
// reading of not-.
func pfNegated(a *yaml.Node) *yaml.Node {
	t := valueOf(a, "type")
	rest, ok := strings.CutPrefix(t.Value, "not-")
	if !ok || isEvaluatorType(t.Value) {
		return a
	}
	out := replaceKey(a, "type", "", strNode(t, rest))
	out.Content = append(out.Content, strNode(t, "negate"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true", Line: t.Line, Column: t.Column})
	return out
}

// pfNotCode reports whether a javascript value is neither a string nor null: a number, a
// boolean, a mapping or a list, which promptfoo loads and fails when the test runs.
func pfNotCode(v *yaml.Node) bool {
	v = deref(v)
	return v != nil && !isString(v) && !isNull(v)
}

// pfThrowAtRun is the code an assertion whose value is not code runs: it throws what
// promptfoo's handler throws there ("javascript assertion must have a string value",
// handleJavascript), so the assertion fails with score 0 when it runs, as in promptfoo,
// where a 5.x file gets a load error.
func pfThrowAtRun(v *yaml.Node) *yaml.Node {
	msg, _ := json.Marshal("javascript assertion must have a string value, got " + describeValue(deref(v)))
	return strNode(v, "(() => { throw new Error("+string(msg)+") })()")
}

// pfSimilarValues checks the list of values of a similar assertion (promptfoo: at least one,
// each a string) and returns its first.
func (l *loader) pfSimilarValues(list *yaml.Node, id string) (*yaml.Node, bool) {
	if len(list.Content) == 0 {
		l.errorf(list, KindEvaluator, id, "similar %q must hold at least one text to compare the answer with", "value")
		return nil, false
	}
	for i, v := range list.Content {
		if v := deref(v); !isString(v) || strings.TrimSpace(v.Value) == "" {
			l.errorf(v, KindEvaluator, id, "similar value[%d] must be a non-empty text, got %s", i, describeValue(v))
			return nil, false
		}
	}
	return deref(list.Content[0]), true
}

// pfFileRef is the path of a file:// value, "" for any other value.
func pfFileRef(v *yaml.Node) string {
	v = deref(v)
	if v == nil || !isString(v) {
		return ""
	}
	rel, ok := strings.CutPrefix(strings.TrimSpace(v.Value), "file://")
	if !ok {
		return ""
	}
	return rel
}
