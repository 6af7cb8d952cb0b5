package suite

import (
	"cmp"
	"fmt"
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
		"threshold", "default_test", "assert", "metadata", "environment", "extensions"}
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
	// v5NotYet are 5.x keys this front-end does not read yet; a file using them is not run,
	// since ignoring them would run something other than what the file asks.
	v5NotYet = []string{"scenarios", "derived_metrics", "nunjucks_filters", "graders",
		"defaults", "workspace", "input_files", "env", "output_path"}
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
	fileDefault string // default_test's file, for messages, "" when inline
	env         v5EnvState
}

// v5Prompt is one entry of `prompts`: its id (for expanded test ids) and its template.
type v5Prompt struct {
	id    string
	label string // "" if none
	input *yaml.Node
}

// loadV5 reads the root mapping of an AgentV 5.x file.
func (l *loader) loadV5(root *yaml.Node) {
	l.s.setDialect(Dialect5)
	// 5.x names a suite without `name` after its file less .eval.yaml (yaml-parser.ts,
	// fallbackSuiteName), as 4.42.4 did.
	if n := len(l.s.Dataset) - len(".eval"); n > 0 && strings.EqualFold(l.s.Dataset[n:], ".eval") {
		l.s.Dataset = l.s.Dataset[:n]
	}
	l.v5Env(root, map[*yaml.Node]bool{})
	es := entries(root)
	l.dupes(es, "")
	f := kvs(es)
	sx := &v5Suite{}
	ok := true
	for i := range es {
		e := &es[i]
		if hint, removed := v5Removed[e.key]; removed {
			l.errorf(e.kn, KindStructure, "", "%q is not accepted in an AgentV 5.x file: %s", e.key, hint)
			ok = false
			continue
		}
		if slices.Contains(v5NotYet, e.key) {
			l.errorf(e.kn, KindStructure, "", "AgentV 5.x %q is not supported yet", e.key)
			ok = false
			continue
		}
		switch e.key {
		case "$schema", "category", "author", "license", "requires", "experiment", "prompts", "tests", "assert", "default_test":
		case "name", "description":
			l.suiteKey(e)
		case "version":
			l.s.Version = l.scalar(e)
		case "tags":
			if e.v.Kind != yaml.MappingNode { // a promptfoo tag map labels the run; a list selects
				l.s.Tags = l.stringList(e, "")
			}
		case "target":
			ok = l.v5Target(e) && ok
		case "targets":
			ok = l.v5Targets(e) && ok
		case "threshold":
			// The migration guide moves 4.x execution.threshold here unchanged.
			if t := threshold(e, l.suiteError); t != nil {
				l.s.Threshold = t
			}
		case "evaluate_options":
			ok = l.v5EvaluateOptions(e) && ok
		case "timeout_seconds":
			l.warnf(e.kn, KindIgnored, "", "%q is not read from the file yet (ignored): give the run's timeout with --timeout", e.key)
		case "metadata":
			sx.metadata = l.v4MetadataOf(e, "")
		case "environment":
			if sx.env.suite = l.v5Environment(e.v, "the environment", func(at *yaml.Node, format string, args ...any) {
				l.errorf(at, KindStructure, "", format, args...)
			}); sx.env.suite == nil {
				sx.env.bad, ok = true, false
			}
		case "extensions":
			ok = l.v5Extensions(e) && ok
		default:
			l.unknownKey(*e, "at the top level", "", v5TopKeys)
		}
	}
	ok = l.v5DefaultTest(sx, f.get("default_test")) && ok
	if p := f.get("prompts"); p != nil {
		var pok bool
		if sx.prompts, pok = l.v5Prompts(p); !pok {
			return // every test would miss its input
		}
	}
	// The suite's assertions: default_test's, then the top-level ones (yaml-parser.ts,
	// combineInheritedAssertions).
	if a := f.get("assert"); a != nil && !isNull(a.v) {
		if a.v.Kind != yaml.SequenceNode {
			l.errorf(a.v, KindStructure, "", "%q must be a list of assertions, got %s", "assert", kindName(a.v))
			ok = false
		} else {
			sx.assertsAt = cmp.Or(sx.assertsAt, a.kn)
			sx.asserts = append(sx.asserts, a.v.Content...)
		}
	}
	l.v5WarnSuiteTemplates(sx.asserts)
	// The tests are read even after an error above, so that one pass reports every problem;
	// the file does not run either way.
	_ = ok
	tests := f.get("tests")
	switch {
	case tests == nil:
		l.errorf(&yaml.Node{Line: root.Line, Column: root.Column}, KindStructure, "", "missing %q: an AgentV 5.x file needs a list of tests", "tests")
	case isNull(tests.v):
		l.errorf(tests.kn, KindStructure, "", "%q is empty: give a list of tests or a file://… of raw cases", "tests")
	case tests.v.Kind == yaml.ScalarNode:
		l.v5TestFile(sx, tests.v)
	case tests.v.Kind == yaml.SequenceNode:
		if len(tests.v.Content) == 0 {
			l.warnf(tests.v, KindStructure, "", "the test list is empty")
		}
		for i, item := range tests.v.Content {
			if d := deref(item); d != nil && d.Kind == yaml.ScalarNode && !isNull(d) {
				l.v5TestFile(sx, d)
				continue
			} else if d != nil && d.Kind == yaml.MappingNode && hasKey(d, "include") {
				l.errorf(d, KindStructure, "", "tests[%d]: an %q entry (tests imported from another suite) is not supported yet", i, "include")
				continue
			}
			l.v5Test(sx, item, false, i)
		}
	default:
		l.errorf(tests.v, KindStructure, "", "%q must be a list of tests or a file://… of raw cases, got %s", "tests", kindName(tests.v))
	}
	l.v5SettleEnvironment(sx)
	l.checkDependencies(l.deps)
}

// v5Target reads the top-level `target`: a target id, or a mapping with `id` that may define
// the target itself (with `provider`), which then wins over the targets file's
// (parseEvalTargetSpec, selectTarget at v5.3.1-next.1).
func (l *loader) v5Target(e *kv) bool {
	switch {
	case isNull(e.v):
		return true
	case e.v.Kind == yaml.ScalarNode:
		l.s.Target = strings.TrimSpace(e.v.Value)
		return true
	case e.v.Kind == yaml.MappingNode:
		id, ok := l.v5TargetRef(e.v, "target", true)
		l.s.Target = id
		return ok
	}
	l.errorf(e.v, KindStructure, "", "%q must be a target id or a mapping with %q, got %s", "target", "id", kindName(e.v))
	return false
}

// v5Targets reads the top-level `targets`: ids, or mappings with `id` that may define the
// target (with `provider`); each test runs on each.
func (l *loader) v5Targets(e *kv) bool {
	items := []*yaml.Node{e.v}
	switch {
	case isNull(e.v):
		return true
	case e.v.Kind == yaml.SequenceNode:
		items = e.v.Content
	}
	ok := true
	for _, it := range items {
		switch it = deref(it); {
		case it != nil && it.Kind == yaml.ScalarNode && strings.TrimSpace(it.Value) != "":
			l.s.Targets = append(l.s.Targets, strings.TrimSpace(it.Value))
		case it != nil && it.Kind == yaml.MappingNode:
			id, good := l.v5TargetRef(it, "targets", false)
			ok = ok && good
			if good {
				l.s.Targets = append(l.s.Targets, id)
			}
		default:
			l.errorf(it, KindStructure, "", "%q items must be target ids or mappings with %q, got %s", "targets", "id", kindName(it))
			ok = false
		}
	}
	return ok
}

// v5TargetRef reads a target mapping of an eval file: `id` names it; with `provider` the
// mapping is the target's definition, built like a targets file entry (config-loader.ts,
// parseEvalTargetRef). A `targets` item's definition is used only when the targets file has
// no target of that id (selectMultipleTargets); the `target` mapping's wins (own).
func (l *loader) v5TargetRef(m *yaml.Node, where string, own bool) (string, bool) {
	id := ""
	ok := true
	var provider, extra *yaml.Node
	for _, x := range entries(m) {
		switch x.key {
		case "id":
			if x.v.Kind == yaml.ScalarNode && strings.TrimSpace(x.v.Value) != "" {
				id = strings.TrimSpace(x.v.Value)
			}
		case "name", "label":
			l.errorf(x.kn, KindStructure, "", "%s %q has been removed in AgentV 5.x: write %q", where, x.key, "id")
			ok = false
		case "use_target":
			l.errorf(x.kn, KindStructure, "", "%s %q has been removed in AgentV 5.x: define the target in the targets file and name it by %q", where, x.key, "id")
			ok = false
		case "hooks", "extends":
			l.errorf(x.kn, KindStructure, "", "%s %q is not supported yet", where, x.key)
			ok = false
		case "provider":
			if !isString(x.v) || strings.TrimSpace(x.v.Value) == "" {
				l.errorf(x.v, KindStructure, "", "%s %q must name a provider (for example cli or openai), got %s", where, x.key, describe(x.v))
				ok = false
			}
			provider = x.v
		default:
			extra = cmp.Or(extra, x.kn)
		}
	}
	if id == "" && ok {
		l.errorf(m, KindStructure, "", "%s mapping needs an %q naming a target", where, "id")
		ok = false
	}
	if provider == nil && extra != nil {
		// 5.x reads such a mapping as the id alone.
		l.warnf(extra, KindIgnored, "", "%s %q is ignored without a %q: the mapping names target %q of the targets file", where, extra.Value, "provider", id)
	}
	if !ok || provider == nil {
		return id, ok
	}
	settings, err := toJSON(m)
	if err != nil {
		l.errorf(m, KindStructure, "", "%s %q: %v", where, id, err)
		return id, false
	}
	if i := slices.IndexFunc(l.s.TargetDefs, func(d TargetDef) bool { return d.Name == id }); i >= 0 {
		l.errorf(m, KindStructure, "", "%s: target %q is defined twice in the eval file (also at line %d)", where, id, l.s.TargetDefs[i].Pos.Line)
		return id, false
	}
	file, line := l.where(m.Line)
	l.s.TargetDefs = append(l.s.TargetDefs, TargetDef{Name: id, Pos: Position{File: file, Line: line, Col: m.Column},
		Settings: settings, Overrides: own})
	return id, true
}

// v5EvaluateOptions reads `evaluate_options` (schema: EvaluateOptionsSchema, strict).
func (l *loader) v5EvaluateOptions(e *kv) bool {
	if isNull(e.v) {
		return true
	}
	es, ok := l.mappingEntries(e, "%q must be a mapping with repeat, budget_usd and max_concurrency", "evaluate_options")
	if !ok {
		return false
	}
	for i := range es {
		x := &es[i]
		switch x.key {
		case "repeat":
			ok = l.v5Repeat(x) && ok
		// A bad budget or concurrency is warned about and not used, as 5.x does
		// (config-loader.ts, getSuiteEvaluateOptionsNumber).
		case "budget_usd":
			if isNull(x.v) {
				break // 5.x reads null as not set
			}
			if v, num := number(x.v); !num || v <= 0 || math.IsInf(v, 0) {
				l.warnf(x.v, KindIgnored, "", "evaluate_options %q must be a number of US dollars above 0, got %s (ignored)", x.key, describe(x.v))
			} else {
				l.s.BudgetUSD = v
			}
		case "max_concurrency":
			if isNull(x.v) {
				break
			}
			if v, num := number(x.v); !num || v != math.Trunc(v) || v < 1 || v > 50 {
				l.warnf(x.v, KindIgnored, "", "evaluate_options %q must be a whole number from 1 to 50, got %s (ignored)", x.key, describe(x.v))
			} else {
				l.s.Workers = int(v)
			}
		case "cache", "delay", "generate_suggestions", "timeout_ms", "max_eval_time_ms", "filter_range":
			l.warnf(x.kn, KindIgnored, "", "evaluate_options %q is not supported yet (ignored)", x.key)
		default:
			// 5.x's schema is strict here: an unknown key stops the file.
			l.errorf(x.kn, KindStructure, "", "%s", strings.Replace(unknownKeyMsg(x.key, "in evaluate_options", v5EvaluateOptionKeys), " (ignored)", "", 1))
			ok = false
		}
	}
	return ok
}

// v5DefaultTest reads `default_test` (inline, or file://… of a YAML mapping): its vars,
// options and assert are merged into every test (yaml-parser.ts, mergeDefaultTestVarsIntoCases,
// mergeDefaultTestOptionsIntoCases, combineInheritedAssertions).
func (l *loader) v5DefaultTest(sx *v5Suite, e *kv) bool {
	if e == nil || isNull(e.v) {
		return true
	}
	m := e.v
	if m.Kind == yaml.ScalarNode {
		ref := strings.TrimSpace(m.Value)
		if !strings.HasPrefix(ref, "file://") {
			l.errorf(m, KindStructure, "", "%q must be a mapping or a file://… reference, got %q", "default_test", m.Value)
			return false
		}
		m = l.v5ReadMapping(m, strings.TrimPrefix(ref, "file://"), "default_test")
		if m == nil {
			return false
		}
		sx.fileDefault = ref
	}
	if m.Kind != yaml.MappingNode {
		l.errorf(m, KindStructure, "", "%q must be a mapping with vars, assert and options, got %s", "default_test", kindName(m))
		return false
	}
	ok := true
	for _, x := range entries(m) {
		switch x.key {
		case "vars", "options":
			if !isNull(x.v) && x.v.Kind != yaml.MappingNode {
				l.errorf(x.v, KindStructure, "", "default_test %q must be a mapping, got %s", x.key, kindName(x.v))
				ok = false
			} else if x.key == "vars" {
				sx.vars = x.v
			} else {
				sx.options = x.v
				ok = l.v5Options(x.v, "") && ok
				ok = l.v5DefaultRepeat(x.v) && ok
			}
		case "assert":
			if isNull(x.v) {
				continue
			}
			if x.v.Kind != yaml.SequenceNode {
				l.errorf(x.v, KindStructure, "", "default_test %q must be a list of assertions, got %s", x.key, kindName(x.v))
				ok = false
				continue
			}
			sx.assertsAt = x.kn
			sx.asserts = append(sx.asserts, x.v.Content...)
		case "expected_output":
			l.errorf(x.kn, KindStructure, "", "default_test %q is not accepted in AgentV 5.x: %s", x.key, v5Removed["expected_output"])
			ok = false
		case "assertions", "description":
			l.errorf(x.kn, KindStructure, "", "default_test %q is not accepted in AgentV 5.x", x.key)
			ok = false
		case "threshold":
			l.v5DefaultThreshold(sx, x)
		case "metadata", "provider", "providers", "prompts", "provider_output", "assert_scoring_function":
			// In the schema, never read (yaml-parser.ts and config-loader.ts read only
			// default_test's vars, options, assert and threshold).
			l.warnf(x.kn, KindIgnored, "", "default_test %q is not read by AgentV 5.3.1-next.1 (ignored)", x.key)
		default:
			l.errorf(x.kn, KindStructure, "", "%s", strings.Replace(unknownKeyMsg(x.key, "in default_test", []string{"vars", "assert", "options"}), " (ignored)", "", 1))
			ok = false
		}
	}
	return ok
}

// v5Options checks a test's or default_test's `options`: `transform` shapes the answer the
// test's graders see (v5Test reads it); `repeat` is read with the test's run (v5OptionsRepeat,
// v5DefaultRepeat); other promptfoo options are ignored with a warning.
func (l *loader) v5Options(m *yaml.Node, id string) bool {
	ok := true
	for _, x := range entries(m) {
		switch x.key {
		case "transform":
			_, good := l.v5Transform(x.v, "options transform", func(at *yaml.Node, format string, args ...any) {
				l.errorf(at, KindStructure, id, "%s", fmt.Sprintf(format, args...)+notLoaded(id))
			})
			ok = ok && good
		case "repeat": // read with the test's run (v5OptionsRepeat, v5DefaultRepeat)
		case "postprocess":
			l.errorf(x.kn, KindStructure, id, "options %q is not supported yet%s", x.key, notLoaded(id))
			ok = false
		default:
			l.warnf(x.kn, KindIgnored, id, "options %q is not supported yet (ignored)", x.key)
		}
	}
	return ok
}

// v5WarnSuiteTemplates warns about `{{ var }}` in the suite's assertions (default_test's and
// the top-level ones): 5.3.1-next.1 does not render them, so they are compared or judged as
// written, though its migration guide shows `{{ expected_output }}` there.
func (l *loader) v5WarnSuiteTemplates(items []*yaml.Node) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n = deref(n); n == nil || depth > 64 {
			return
		}
		if n.Kind == yaml.ScalarNode {
			if m := v5VarRef.FindString(n.Value); m != "" {
				l.warnf(n, KindTemplate, "", "%s in a default_test or top-level assertion is used as written: AgentV 5.3.1-next.1 renders vars only in a test's own fields (write the assertion in the test, or take the value from its vars there)", m)
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
