package agentv5

import (
	"cmp"
	"fmt"
	"github.com/agentv/action/suite"
	"math"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Keys of the AgentV 5.x dialect (validation/eval-file.schema.ts at v5.3.1-next.1,
// EvalFileSchemaInput).
var (
	v5TopKeys = []string{"$schema", "name", "description", "category", "version", "author", "tags", "license",
		"requires", "prompts", "tests", "target", "targets", "experiment", "timeout_seconds", "evaluate_options",
		"threshold", "default_test", "assert", "metadata", "environment", "extensions", "scenarios", "env",
		"output_path", "derived_metrics", "input_files", "workspace"}
	// v5TopUnread are top-level keys 5.x's schema accepts and its eval loader never reads
	// (yaml-parser.ts at v5.3.1-next.1 has no reader for them; derived_metrics and output_path
	// are result fields, filled by the run).
	v5TopUnread = []string{"env", "output_path", "derived_metrics"}
	// v5Removed are top-level keys 5.x rejects, with what to write instead (yaml-parser.ts,
	// readSuiteRuntimeBlock, rejectAuthoredDirectInput, rejectAuthoredExpectedOutput; the schema).
	v5Removed = map[string]string{
		"execution":           "AgentV 5.x has no top-level execution: write target, targets and threshold at the top level and repeat, budget_usd and max_concurrency under evaluate_options",
		"assertions":          `write "assert"`,
		"input":               `put the prompt in "prompts" and the test's data in tests[].vars (or default_test.vars)`,
		"expected_output":     `put the reference answer in default_test.vars.expected_output and consume it with an assertion such as {type: llm-rubric, value: "Matches the reference answer: {{ expected_output }}"}`,
		"eval_cases":          `write "tests"`,
		"evalcases":           `write "tests"`,
		"cases":               `write "tests"`,
		"imports":             "run eval files directly; share config with prompts: file://…, default_test: file://…",
		"providers":           `write "targets"`,
		"model":               "put the model in the target",
		"runs":                "write evaluate_options.repeat.count",
		"repeat":              "write evaluate_options.repeat",
		"early_exit":          "write evaluate_options.repeat.early_exit",
		"budget_usd":          "write evaluate_options.budget_usd",
		"workers":             "write evaluate_options.max_concurrency",
		"policy":              "write evaluate_options.repeat, threshold and evaluate_options.budget_usd",
		"on_run_complete":     "use extensions with afterAll",
		"preprocessors":       `write "transform"`,
		"providerPromptMap":   `write "targets"`,
		"provider_prompt_map": `write "targets"`,
	}
	v5EvaluateOptionKeys = []string{"budget_usd", "max_concurrency", "cache", "delay", "generate_suggestions", "repeat",
		"timeout_ms", "max_eval_time_ms", "filter_range"}
)

// v5Suite is what a 5.x file passes on to each of its tests.
type v5Suite struct {
	prompts     []v5Prompt // nil: the tests carry their input (raw case files)
	vars        *yaml.Node // default_test.vars, a mapping, nil if none
	options     *yaml.Node // default_test.options, a mapping, nil if none
	asserts     []*yaml.Node
	assertsAt   *yaml.Node // where the suite's assertions start, for positions
	metadata    *yaml.Node
	fileDefault string           // default_test's file, for messages, "" when inline
	inputFiles  *suite.Entry     // the top-level input_files, nil if none
	hooks       *suite.Workspace // the top-level workspace's hooks, nil if none
	hooksAt     *yaml.Node
	env         v5EnvState
	filters     *v5Filters // nunjucks_filters, nil if none
}

// v5Prompt is one entry of `prompts`: its id (for expanded test ids) and its template.
type v5Prompt struct {
	id    string
	label string // "" if none
	input *yaml.Node
}

// loadV5 reads the root mapping of an AgentV 5.x file.
func (l *reader) loadV5(root *yaml.Node) {
	l.Suite.SetDialect(suite.Dialect5)
	// 5.x names a suite without `name` after its file less .eval.yaml (yaml-parser.ts,
	// fallbackSuiteName), as 4.42.4 did.
	if n := len(l.Suite.Dataset) - len(".eval"); n > 0 && strings.EqualFold(l.Suite.Dataset[n:], ".eval") {
		l.Suite.Dataset = l.Suite.Dataset[:n]
	}
	l.v5Env(root, map[*yaml.Node]bool{})
	es := suite.MapEntries(root)
	l.Dupes(es, "")
	f := suite.EntryList(es)
	sx := &v5Suite{}
	ok := true
	var scenarios []*yaml.Node // the tests lowered from `scenarios`, run after `tests`
	for i := range es {
		e := &es[i]
		if hint, removed := v5Removed[e.Key]; removed {
			l.Errorf(e.KeyNode, suite.KindStructure, "", "%q is not accepted in an AgentV 5.x file: %s", e.Key, hint)
			ok = false
			continue
		}
		if slices.Contains(v5TopUnread, e.Key) {
			l.Warnf(e.KeyNode, suite.KindIgnored, "", "%q is not read by AgentV 5.3.1-next.1 (ignored)", e.Key)
			continue
		}
		switch e.Key {
		case "scenarios":
			var sok bool
			scenarios, sok = l.v5Scenarios(e)
			ok = sok && ok
		case "workspace":
			ok = l.v5SuiteWorkspace(sx, e) && ok
		case "input_files":
			ok = l.v5TopInputFiles(sx, e, f.Get("prompts")) && ok
		case "$schema", "category", "author", "license", "requires", "experiment", "prompts", "tests", "assert", "default_test":
		case "name", "description":
			l.SuiteKey(e)
		case "version":
			l.Suite.Version = l.Scalar(e)
		case "tags":
			if e.Value.Kind != yaml.MappingNode { // a promptfoo tag map labels the run; a list selects
				l.Suite.Tags = l.StringList(e, "")
			}
		case "target":
			ok = l.v5Target(e) && ok
		case "targets":
			ok = l.v5Targets(e) && ok
		case "threshold":
			// The migration guide moves 4.x execution.threshold here unchanged.
			if t := suite.ParseThreshold(e, l.SuiteError); t != nil {
				l.Suite.Threshold = t
			}
		case "evaluate_options":
			ok = l.v5EvaluateOptions(e) && ok
		case "timeout_seconds":
			l.Warnf(e.KeyNode, suite.KindIgnored, "", "%q is not read from the file yet (ignored): give the run's timeout with --timeout", e.Key)
		case "metadata":
			sx.metadata = l.V4MetadataOf(e, "")
		case "environment":
			if sx.env.suite = l.v5Environment(e.Value, "the environment", func(at *yaml.Node, format string, args ...any) {
				l.Errorf(at, suite.KindStructure, "", format, args...)
			}); sx.env.suite == nil {
				sx.env.bad, ok = true, false
			}
		case "extensions":
			ok = l.v5Extensions(e) && ok
		case "graders", "defaults":
			l.v5Unread(e)
		case "nunjucks_filters":
			var fok bool
			sx.filters, fok = l.v5NunjucksFilters(e)
			ok = fok && ok
			defer l.v5FiltersDone(sx.filters) // the child that runs them lives while the tests load
		default:
			l.UnknownKey(*e, "at the top level", "", v5TopKeys)
		}
	}
	ok = l.v5DefaultTest(sx, f.Get("default_test")) && ok
	if p := f.Get("prompts"); p != nil {
		var pok bool
		if sx.prompts, pok = l.v5Prompts(p); !pok {
			return // every test would miss its input
		}
	}
	// The suite's assertions: default_test's, then the top-level ones (yaml-parser.ts,
	// combineInheritedAssertions).
	if a := f.Get("assert"); a != nil && !suite.IsNull(a.Value) {
		if a.Value.Kind != yaml.SequenceNode {
			l.Errorf(a.Value, suite.KindStructure, "", "%q must be a list of assertions, got %s", "assert", suite.KindName(a.Value))
			ok = false
		} else {
			sx.assertsAt = cmp.Or(sx.assertsAt, a.KeyNode)
			sx.asserts = append(sx.asserts, a.Value.Content...)
		}
	}
	l.v5WarnSuiteTemplates(sx.asserts)
	// The tests are read even after an error above, so that one pass reports every problem;
	// the file does not run either way.
	_ = ok
	tests := f.Get("tests")
	switch {
	case tests == nil && f.Get("scenarios") != nil:
	case tests == nil:
		l.Errorf(&yaml.Node{Line: root.Line, Column: root.Column}, suite.KindStructure, "", "missing %q: an AgentV 5.x file needs a list of tests", "tests")
	case suite.IsNull(tests.Value):
		l.Errorf(tests.KeyNode, suite.KindStructure, "", "%q is empty: give a list of tests or a file://… of raw cases", "tests")
	case tests.Value.Kind == yaml.ScalarNode:
		l.v5TestFile(sx, tests.Value)
	case tests.Value.Kind == yaml.SequenceNode:
		if len(tests.Value.Content) == 0 {
			l.Warnf(tests.Value, suite.KindStructure, "", "the test list is empty")
		}
		for i, item := range tests.Value.Content {
			if d := suite.Deref(item); d != nil && d.Kind == yaml.ScalarNode && !suite.IsNull(d) {
				l.v5TestFile(sx, d)
				continue
			} else if d != nil && d.Kind == yaml.MappingNode && suite.HasKey(d, "include") {
				l.Errorf(d, suite.KindStructure, "", "tests[%d]: an %q entry (tests imported from another suite) is not supported yet", i, "include")
				continue
			}
			l.v5Test(sx, item, false, i)
		}
	default:
		l.Errorf(tests.Value, suite.KindStructure, "", "%q must be a list of tests or a file://… of raw cases, got %s", "tests", suite.KindName(tests.Value))
	}
	for i, t := range scenarios {
		l.v5Test(sx, t, false, i)
	}
	l.v5SettleEnvironment(sx)
	l.v5SettleWorkspace(sx)
	l.CheckDependencies(l.Deps)
}

// v5Target reads the top-level `target`: a target id, or a mapping with `id` that may define
// the target itself (with `provider`), which then wins over the targets file's
// (parseEvalTargetSpec, selectTarget at v5.3.1-next.1).
func (l *reader) v5Target(e *suite.Entry) bool {
	switch {
	case suite.IsNull(e.Value):
		return true
	case e.Value.Kind == yaml.ScalarNode:
		l.Suite.Target = strings.TrimSpace(e.Value.Value)
		return true
	case e.Value.Kind == yaml.MappingNode:
		id, ok := l.v5TargetRef(e.Value, "target", true)
		l.Suite.Target = id
		return ok
	}
	l.Errorf(e.Value, suite.KindStructure, "", "%q must be a target id or a mapping with %q, got %s", "target", "id", suite.KindName(e.Value))
	return false
}

// v5Targets reads the top-level `targets`: ids, or mappings with `id` that may define the
// target (with `provider`); each test runs on each.
func (l *reader) v5Targets(e *suite.Entry) bool {
	items := []*yaml.Node{e.Value}
	switch {
	case suite.IsNull(e.Value):
		return true
	case e.Value.Kind == yaml.SequenceNode:
		items = e.Value.Content
	}
	ok := true
	for _, it := range items {
		switch it = suite.Deref(it); {
		case it != nil && it.Kind == yaml.ScalarNode && strings.TrimSpace(it.Value) != "":
			l.Suite.Targets = append(l.Suite.Targets, strings.TrimSpace(it.Value))
		case it != nil && it.Kind == yaml.MappingNode:
			id, good := l.v5TargetRef(it, "targets", false)
			ok = ok && good
			if good {
				l.Suite.Targets = append(l.Suite.Targets, id)
			}
		default:
			l.Errorf(it, suite.KindStructure, "", "%q items must be target ids or mappings with %q, got %s", "targets", "id", suite.KindName(it))
			ok = false
		}
	}
	return ok
}

// v5TargetRef reads a target mapping of an eval file: `id` names it; with `provider` the
// mapping is the target's definition, built like a targets file entry (config-loader.ts,
// parseEvalTargetRef). A `targets` item's definition is used only when the targets file has
// no target of that id (selectMultipleTargets); the `target` mapping's wins (own).
func (l *reader) v5TargetRef(m *yaml.Node, where string, own bool) (string, bool) {
	id := ""
	ok := true
	var provider, extra *yaml.Node
	for _, x := range suite.MapEntries(m) {
		switch x.Key {
		case "id":
			if x.Value.Kind == yaml.ScalarNode && strings.TrimSpace(x.Value.Value) != "" {
				id = strings.TrimSpace(x.Value.Value)
			}
		case "name", "label":
			l.Errorf(x.KeyNode, suite.KindStructure, "", "%s %q has been removed in AgentV 5.x: write %q", where, x.Key, "id")
			ok = false
		case "use_target":
			l.Errorf(x.KeyNode, suite.KindStructure, "", "%s %q has been removed in AgentV 5.x: define the target in the targets file and name it by %q", where, x.Key, "id")
			ok = false
		case "hooks", "extends":
			l.Errorf(x.KeyNode, suite.KindStructure, "", "%s %q is not supported yet", where, x.Key)
			ok = false
		case "provider":
			if !suite.IsString(x.Value) || strings.TrimSpace(x.Value.Value) == "" {
				l.Errorf(x.Value, suite.KindStructure, "", "%s %q must name a provider (for example cli or openai), got %s", where, x.Key, suite.Describe(x.Value))
				ok = false
			}
			provider = x.Value
		default:
			extra = cmp.Or(extra, x.KeyNode)
		}
	}
	if id == "" && ok {
		l.Errorf(m, suite.KindStructure, "", "%s mapping needs an %q naming a target", where, "id")
		ok = false
	}
	if provider == nil && extra != nil {
		// 5.x reads such a mapping as the id alone.
		l.Warnf(extra, suite.KindIgnored, "", "%s %q is ignored without a %q: the mapping names target %q of the targets file", where, extra.Value, "provider", id)
	}
	if !ok || provider == nil {
		return id, ok
	}
	settings, err := suite.ToJSON(m)
	if err != nil {
		l.Errorf(m, suite.KindStructure, "", "%s %q: %v", where, id, err)
		return id, false
	}
	if i := slices.IndexFunc(l.Suite.TargetDefs, func(d suite.TargetDef) bool { return d.Name == id }); i >= 0 {
		l.Errorf(m, suite.KindStructure, "", "%s: target %q is defined twice in the eval file (also at line %d)", where, id, l.Suite.TargetDefs[i].Pos.Line)
		return id, false
	}
	file, line := l.Where(m.Line)
	l.Suite.TargetDefs = append(l.Suite.TargetDefs, suite.TargetDef{Name: id, Pos: suite.Position{File: file, Line: line, Col: m.Column},
		Settings: settings, Overrides: own})
	return id, true
}

// v5EvaluateOptions reads `evaluate_options` (schema: EvaluateOptionsSchema, strict).
func (l *reader) v5EvaluateOptions(e *suite.Entry) bool {
	if suite.IsNull(e.Value) {
		return true
	}
	es, ok := l.MappingEntries(e, "%q must be a mapping with repeat, budget_usd and max_concurrency", "evaluate_options")
	if !ok {
		return false
	}
	for i := range es {
		x := &es[i]
		switch x.Key {
		case "repeat":
			ok = l.v5Repeat(x) && ok
		// A bad budget or concurrency is warned about and not used, as 5.x does
		// (config-loader.ts, getSuiteEvaluateOptionsNumber).
		case "budget_usd":
			if suite.IsNull(x.Value) {
				break // 5.x reads null as not set
			}
			if v, num := suite.Number(x.Value); !num || v <= 0 || math.IsInf(v, 0) {
				l.Warnf(x.Value, suite.KindIgnored, "", "evaluate_options %q must be a number of US dollars above 0, got %s (ignored)", x.Key, suite.Describe(x.Value))
			} else {
				l.Suite.BudgetUSD = v
			}
		case "max_concurrency":
			if suite.IsNull(x.Value) {
				break
			}
			if v, num := suite.Number(x.Value); !num || v != math.Trunc(v) || v < 1 || v > 50 {
				l.Warnf(x.Value, suite.KindIgnored, "", "evaluate_options %q must be a whole number from 1 to 50, got %s (ignored)", x.Key, suite.Describe(x.Value))
			} else {
				l.Suite.Workers = int(v)
			}
		case "cache", "delay", "generate_suggestions", "timeout_ms", "max_eval_time_ms", "filter_range":
			l.Warnf(x.KeyNode, suite.KindIgnored, "", "evaluate_options %q is not supported yet (ignored)", x.Key)
		default:
			// 5.x's schema is strict here: an unknown key stops the file.
			l.Errorf(x.KeyNode, suite.KindStructure, "", "%s", strings.Replace(suite.UnknownKeyMsg(x.Key, "in evaluate_options", v5EvaluateOptionKeys), " (ignored)", "", 1))
			ok = false
		}
	}
	return ok
}

// v5DefaultTest reads `default_test` (inline, or file://… of a YAML mapping): its vars,
// options and assert are merged into every test (yaml-parser.ts, mergeDefaultTestVarsIntoCases,
// mergeDefaultTestOptionsIntoCases, combineInheritedAssertions).
func (l *reader) v5DefaultTest(sx *v5Suite, e *suite.Entry) bool {
	if e == nil || suite.IsNull(e.Value) {
		return true
	}
	m := e.Value
	if m.Kind == yaml.ScalarNode {
		ref := strings.TrimSpace(m.Value)
		if !strings.HasPrefix(ref, "file://") {
			l.Errorf(m, suite.KindStructure, "", "%q must be a mapping or a file://… reference, got %q", "default_test", m.Value)
			return false
		}
		m = l.v5ReadMapping(m, strings.TrimPrefix(ref, "file://"), "default_test")
		if m == nil {
			return false
		}
		sx.fileDefault = ref
	}
	if m.Kind != yaml.MappingNode {
		l.Errorf(m, suite.KindStructure, "", "%q must be a mapping with vars, assert and options, got %s", "default_test", suite.KindName(m))
		return false
	}
	ok := true
	for _, x := range suite.MapEntries(m) {
		switch x.Key {
		case "vars", "options":
			if !suite.IsNull(x.Value) && x.Value.Kind != yaml.MappingNode {
				l.Errorf(x.Value, suite.KindStructure, "", "default_test %q must be a mapping, got %s", x.Key, suite.KindName(x.Value))
				ok = false
			} else if x.Key == "vars" {
				sx.vars = x.Value
			} else {
				sx.options = x.Value
				ok = l.v5Options(x.Value, "") && ok
				ok = l.v5DefaultRepeat(x.Value) && ok
			}
		case "assert":
			if suite.IsNull(x.Value) {
				continue
			}
			if x.Value.Kind != yaml.SequenceNode {
				l.Errorf(x.Value, suite.KindStructure, "", "default_test %q must be a list of assertions, got %s", x.Key, suite.KindName(x.Value))
				ok = false
				continue
			}
			sx.assertsAt = x.KeyNode
			sx.asserts = append(sx.asserts, x.Value.Content...)
		case "expected_output":
			l.Errorf(x.KeyNode, suite.KindStructure, "", "default_test %q is not accepted in AgentV 5.x: %s", x.Key, v5Removed["expected_output"])
			ok = false
		case "assertions", "description":
			l.Errorf(x.KeyNode, suite.KindStructure, "", "default_test %q is not accepted in AgentV 5.x", x.Key)
			ok = false
		case "threshold":
			l.v5DefaultThreshold(sx, x)
		case "metadata", "provider", "providers", "prompts", "provider_output", "assert_scoring_function":
			// In the schema, never read (yaml-parser.ts and config-loader.ts read only
			// default_test's vars, options, assert and threshold).
			l.Warnf(x.KeyNode, suite.KindIgnored, "", "default_test %q is not read by AgentV 5.3.1-next.1 (ignored)", x.Key)
		default:
			l.Errorf(x.KeyNode, suite.KindStructure, "", "%s", strings.Replace(suite.UnknownKeyMsg(x.Key, "in default_test", []string{"vars", "assert", "options"}), " (ignored)", "", 1))
			ok = false
		}
	}
	return ok
}

// v5Options checks a test's or default_test's `options`: `transform` shapes the answer the
// test's graders see (v5Test reads it); `repeat` is read with the test's run (v5OptionsRepeat,
// v5DefaultRepeat); other promptfoo options are ignored with a warning.
func (l *reader) v5Options(m *yaml.Node, id string) bool {
	ok := true
	for _, x := range suite.MapEntries(m) {
		switch x.Key {
		case "transform":
			_, good := l.v5Transform(x.Value, "options transform", func(at *yaml.Node, format string, args ...any) {
				l.Errorf(at, suite.KindStructure, id, "%s", fmt.Sprintf(format, args...)+suite.NotLoaded(id))
			})
			ok = ok && good
		case "repeat": // read with the test's run (v5OptionsRepeat, v5DefaultRepeat)
		case "postprocess":
			l.Errorf(x.KeyNode, suite.KindStructure, id, "options %q is not supported yet%s", x.Key, suite.NotLoaded(id))
			ok = false
		default:
			l.Warnf(x.KeyNode, suite.KindIgnored, id, "options %q is not supported yet (ignored)", x.Key)
		}
	}
	return ok
}

// v5WarnSuiteTemplates warns about `{{ var }}` in the suite's assertions (default_test's and
// the top-level ones): 5.3.1-next.1 does not render them, so they are compared or judged as
// written, though its migration guide shows `{{ expected_output }}` there.
func (l *reader) v5WarnSuiteTemplates(items []*yaml.Node) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n = suite.Deref(n); n == nil || depth > 64 {
			return
		}
		if n.Kind == yaml.ScalarNode {
			if m := v5VarRef.FindString(n.Value); m != "" {
				l.Warnf(n, suite.KindTemplate, "", "%s in a default_test or top-level assertion is used as written: AgentV 5.3.1-next.1 renders vars only in a test's own fields (write the assertion in the test, or take the value from its vars there)", m)
			}
			return
		}
		for i, c := range n.Content {
			// A grader prompt's variables are the grader's own ({{ output }}, …).
			if n.Kind == yaml.SequenceNode || i%2 == 1 && n.Content[i-1].Value != "prompt" {
				walk(c, depth+1)
			}
		}
	}
	for _, it := range items {
		walk(it, 0)
	}
}
