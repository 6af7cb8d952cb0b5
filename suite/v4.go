package suite

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

// Dialects of an eval file.
const (
	Dialect25 = "2.5" // `evalcases` (also `cases`, `eval_cases`), evaluators in snake_case
	Dialect4  = "4"   // `tests`, `assertions` in kebab-case, `criteria`
)

// Keys of the AgentV 4.x dialect.
var (
	v4TopKeys = []string{"$schema", "name", "description", "version", "tags", "execution", "assertions", "assert",
		"input", "input_files", "tests", "defaults", "target", "workspace", "metadata"}
	v4ExecKeys = []string{"target", "targets", "threshold", "trials", "assertions", "assert", "evaluators"}
	v4TestKeys = []string{"id", "criteria", "input", "expected_output", "input_files", "conversation_id", "vars",
		"assertions", "assert", "evaluators", "execution", "description", "note", "expected_outcome", "rubrics", "metadata",
		"depends_on", "on_dependency_failure"}
	v4TestExecKeys = []string{"skip_defaults", "targets", "target", "threshold", "trials", "evaluators", "assertions"}
	// v4TestExecIgnored are the keys of a test's execution that 4.x ignores, with the hint given.
	v4TestExecIgnored = map[string]string{
		"target":     `use "targets"`,
		"trials":     "trials are set for the whole file, in its top-level execution",
		"assertions": `write "assertions" in the test itself`,
	}
	// v4GraderLists are the keys of a grader list, in the order 4.42.4 picks the first set one.
	v4GraderLists = []string{"assertions", "assert", "evaluators"}
)

// v4Types maps 4.x grader type names (after `_` → `-`) onto the registered evaluator types;
// names not listed pass through unchanged (the deterministic assertions register under the
// 4.x spelling).
var v4Types = map[string]string{
	"llm-grader":      TypeLLMJudge,
	"code-grader":     TypeCodeJudge,
	"rubrics":         TypeLLMJudge,
	"field-accuracy":  "field_accuracy",
	"tool-trajectory": "tool_trajectory",
	"token-usage":     "token_usage",
	"composite":       "composite",
	"latency":         "latency",
	"cost":            "cost",
}

// v4RubricOperators are the values of a rubric criterion's `operator`.
var v4RubricOperators = []string{"correctness", "contradiction"}

var (
	envRefPattern      = regexp.MustCompile(`\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	wholeEnvRefPattern = regexp.MustCompile(`^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$`)
	varPattern         = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}`)
	wholeVarPattern    = regexp.MustCompile(`^\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}$`)
	plainNumber        = regexp.MustCompile(`^-?(?:0|[1-9]\d*)(?:\.\d+)?$`)
)

// dialectOf tells which dialect a file's root mapping is written in; "" after the one error
// for a file with the case lists of two dialects (named both) or mixing 5.x keys with another
// dialect's.
func (l *loader) dialectOf(root *yaml.Node) string {
	if l.pfDetect(root) {
		return DialectPromptfoo
	}
	if v5, ok := l.v5Detect(root); !ok {
		return ""
	} else if v5 {
		return Dialect5
	}
	var tests, legacy *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == "tests" {
			tests = k
		} else if slices.Contains(caseListKeys, k.Value) {
			legacy = cmp.Or(legacy, k)
		}
	}
	switch {
	case tests != nil && legacy != nil:
		l.errorf(legacy, KindStructure, "", "the file mixes two dialects: %q (AgentV 4.x) at line %d and %q (AgentV 2.5) at line %d; keep one of them",
			"tests", tests.Line, legacy.Value, legacy.Line)
		return ""
	case tests != nil:
		return Dialect4
	}
	return Dialect25
}

// typedValue reports whether an environment value keeps its type when it is a whole scalar
// (a boolean or a plain number).
func typedValue(v string) bool {
	return v == "true" || v == "false" || plainNumber.MatchString(v)
}

// interpolateEnv replaces `${{ VAR }}` in every scalar value below n, in place. A value that
// is exactly one reference takes the variable's type (see typedValue); an unset variable
// becomes empty, with a warning.
func (l *loader) interpolateEnv(n *yaml.Node, seen map[*yaml.Node]bool) {
	eachValue(n, seen, func(n *yaml.Node) {
		if !strings.Contains(n.Value, "${{") {
			return
		}
		lookup := func(name string) string { return l.envValue(n, name, "${{ "+name+" }}") }
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
		if m := wholeEnvRefPattern.FindStringSubmatch(n.Value); m != nil {
			if n.Value = lookup(m[1]); typedValue(n.Value) {
				n.Style = 0
			}
			return
		}
		n.Value = envRefPattern.ReplaceAllStringFunc(n.Value, func(ref string) string {
			return lookup(envRefPattern.FindStringSubmatch(ref)[1])
		})
	})
}

// eachValue calls fn on every scalar value below n (mapping keys left out), each once.
func eachValue(n *yaml.Node, seen map[*yaml.Node]bool, fn func(*yaml.Node)) {
	if n == nil {
		return
	}
	// Only an anchored node can be reached twice (through an alias); remembering just those
	// keeps the walk of a large file from holding a map entry per node.
	if n.Anchor != "" {
		if seen[n] {
			return
		}
		seen[n] = true
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			eachValue(c, seen, fn)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			eachValue(n.Content[i], seen, fn)
		}
	case yaml.AliasNode:
		eachValue(n.Alias, seen, fn)
	case yaml.ScalarNode:
		fn(n)
	}
}

// envValue is an environment variable's value for the reference ref at n: empty, with a
// warning, when it is unset. Any value may be a key, so it is masked, except numbers and
// booleans, which cannot be one and would mask every such number in the reports.
func (l *loader) envValue(n *yaml.Node, name, ref string) string {
	v, ok := l.env(name)
	if !ok {
		l.warnf(n, KindConfig, "", "environment variable %s is not set; %s becomes empty", name, ref)
		return ""
	}
	if strings.TrimSpace(v) != "" && l.opts.Secret != nil && !typedValue(v) {
		l.opts.Secret(v)
	}
	return v
}

// env looks a `${{ VAR }}` variable up: LoadOptions.Env's lookup, else the process environment.
func (l *loader) env(name string) (string, bool) {
	if l.envFor == nil && l.opts.Env != nil {
		l.envFor = l.opts.Env(l.s.Dir, l.s.RepoRoot)
	}
	if l.envFor == nil {
		l.envFor = os.LookupEnv
	}
	return l.envFor(name)
}

// v4Suite holds what a 4.x suite passes on to each of its tests.
type v4Suite struct {
	asserts, input, inputFiles *kv
	metadata                   *yaml.Node // the file's `metadata`, nil if none
}

// loadV4 reads the root mapping of an AgentV 4.x file.
func (l *loader) loadV4(root *yaml.Node) {
	l.s.setDialect(Dialect4)
	// 4.42.4 names a suite without `name` after its file less `.eval.yaml` (yaml-parser.ts,
	// fallbackSuiteName): the same dataset keeps cases matched with its run directories.
	if n := len(l.s.Dataset) - len(".eval"); n > 0 && strings.EqualFold(l.s.Dataset[n:], ".eval") {
		l.s.Dataset = l.s.Dataset[:n]
	}
	l.interpolateEnv(root, map[*yaml.Node]bool{})
	es := entries(root)
	l.dupes(es, "")
	f := kvs(es)
	sx := &v4Suite{input: f.get("input"), inputFiles: f.get("input_files")}
	var execAsserts []*kv // execution's assertions, assert and evaluators, in 4.x's order
	for i := range es {
		e := &es[i]
		if l.suiteKey(e) {
			continue
		}
		switch e.key {
		case "defaults", "tests", "assertions", "assert", "input", "input_files":
		case "version":
			l.s.Version = l.scalar(e)
		case "tags":
			l.s.Tags = l.stringList(e, "")
		case "execution":
			execAsserts = l.v4SuiteExecution(e)
		case "workspace":
			l.v4Workspace(e)
		case "metadata":
			sx.metadata = l.v4MetadataOf(e, "")
		default:
			l.unknownKey(*e, "at the top level", "", v4TopKeys)
		}
	}
	// The suite's default graders: the first set of assertions, assert, and execution's
	// assertions, assert and evaluators, as 4.42.4 picks them (loaders/grader-parser.ts,
	// parseGraders; an empty key does not count).
	sx.asserts = l.firstList(append([]*kv{f.get("assertions"), f.get("assert")}, execAsserts...), "", "assertions")
	if a := sx.asserts; a != nil && a.v.Kind != yaml.SequenceNode {
		l.errorf(a.v, KindStructure, "", "%q must be a list of assertions, got %s; tests using them are not loaded", a.key, kindName(a.v))
	}
	tests := f.get("tests")
	switch {
	case isNull(tests.v):
		l.errorf(tests.kn, KindStructure, "", "%q is empty: give a list of tests or the path of a .yaml or .jsonl file of tests", "tests")
		return
	case tests.v.Kind == yaml.ScalarNode:
		if dir, ok := l.isTestDir(tests.v.Value); ok {
			l.v4TestDir(sx, tests.v, dir)
		} else {
			l.v4TestFile(sx, tests.v, tests.v.Value)
		}
	case tests.v.Kind == yaml.SequenceNode:
		if len(tests.v.Content) == 0 {
			l.warnf(tests.v, KindStructure, "", "the test list is empty")
		}
		for _, item := range tests.v.Content {
			if d := deref(item); d != nil && d.Kind == yaml.ScalarNode && strings.HasPrefix(d.Value, "file://") {
				l.v4TestFile(sx, d, strings.TrimPrefix(d.Value, "file://"))
				continue
			}
			l.addCase(l.v4Test(sx, item))
			// The test is built: let the collector take its part of the node tree now rather
			// than after the whole file, which halves the peak of a large file. A node with an
			// anchor stays whole, for the aliases that may point to it.
			if item.Anchor == "" && item.Kind == yaml.MappingNode {
				item.Content = nil
			}
		}
	default:
		l.errorf(tests.v, KindStructure, "", "%q must be a list of tests or a file path, got %s", "tests", kindName(tests.v))
	}
	l.checkDependencies(l.deps)
}

// v4MetadataOf returns the value of `metadata` e, warning when it is not a mapping.
func (l *loader) v4MetadataOf(e *kv, id string) *yaml.Node {
	if e == nil {
		return nil
	}
	if !isNull(e.v) && deref(e.v).Kind != yaml.MappingNode {
		l.warnf(e.v, KindStructure, id, "%q should be a mapping, got %s (ignored)", e.key, kindName(e.v))
	}
	return e.v
}

// firstList picks the grader list a test or suite uses from candidates (nil entries allowed),
// the first set one winning, as 4.42.4's `a ?? b ?? c`. Every other set candidate is named in
// a warning, and so is a chosen one that is not the canonical first (deprecated spellings).
func (l *loader) firstList(candidates []*kv, id, canonical string) *kv {
	chosen := firstSet(candidates, func(e, chosen *kv) {
		l.warnf(e.kn, KindIgnored, id, "%q ignored: %q is also set (line %d)", e.key, chosen.key, chosen.kn.Line)
	})
	if chosen != nil && chosen != candidates[0] {
		l.warnf(chosen.kn, KindIgnored, id, "%q is deprecated: write %q", chosen.key, canonical)
	}
	return chosen
}

// v4ExecList is entry x of execution, its key "execution.<key>" for messages.
func v4ExecList(x *kv) *kv {
	c := *x
	c.key = "execution." + x.key
	return &c
}

// v4SuiteExecution reads the suite's `execution`; it returns its grader lists (see
// v4GraderLists: 4.42.4 reads them as the suite's default graders).
func (l *loader) v4SuiteExecution(e *kv) []*kv {
	lists := make([]*kv, len(v4GraderLists))
	l.execution(e, "", v4ExecKeys, "target, targets, threshold and trials", l.suiteError, func(x *kv) bool {
		switch x.key {
		case "assertions", "assert", "evaluators":
			lists[slices.Index(v4GraderLists, x.key)] = v4ExecList(x)
		case "target":
			l.execTarget(x)
		case "targets":
			l.s.Targets = l.stringList(x, "")
		case "threshold":
			if t := threshold(x, l.suiteError); t != nil {
				l.s.Threshold = t
			}
		case "trials":
			l.v4Trials(x)
		default:
			return false
		}
		return true
	})
	return lists
}

// stringList reads a string or a list of strings.
func (l *loader) stringList(e *kv, caseID string) []string {
	switch {
	case isNull(e.v):
		return nil
	case e.v.Kind == yaml.ScalarNode:
		return []string{e.v.Value}
	case e.v.Kind != yaml.SequenceNode:
		l.errorf(e.v, KindStructure, caseID, "%q must be a string or a list of strings, got %s", e.key, kindName(e.v))
		return nil
	}
	var out []string
	for _, c := range e.v.Content {
		if c = deref(c); c == nil || c.Kind != yaml.ScalarNode || isNull(c) {
			l.errorf(c, KindStructure, caseID, "%q items must be strings, got %s", e.key, kindName(c))
			continue
		}
		out = append(out, c.Value)
	}
	return out
}

// v4TestFile loads the tests of an external file (`tests: path` or a `file://` item): a YAML
// list of tests or JSONL, one test a line; a pattern with * ? or { is a glob.
func (l *loader) v4TestFile(sx *v4Suite, at *yaml.Node, rel string) {
	pattern := absPath(l.s.Dir, rel)
	files := []string{pattern}
	if strings.ContainsAny(rel, "*?{") {
		matches, err := doublestar.FilepathGlob(pattern, doublestar.WithFilesOnly())
		switch {
		case err != nil:
			l.errorf(at, KindStructure, "", "bad test file pattern %q: %v", rel, err)
			return
		case len(matches) == 0:
			l.warnf(at, KindMissingFile, "", "test file pattern %q matched no files", rel)
			return
		}
		slices.Sort(matches)
		files = matches
	}
	for _, f := range files {
		l.v4LoadTestFile(sx, at, f)
	}
}

func (l *loader) v4LoadTestFile(sx *v4Suite, at *yaml.Node, abs string) {
	ext := strings.ToLower(filepath.Ext(abs))
	if ext != ".yaml" && ext != ".yml" && ext != ".jsonl" {
		l.errorf(at, KindFile, "", "test file %q: unsupported format %q (want .yaml, .yml or .jsonl)", displayPath(abs, l.cwd), ext)
		return
	}
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	if err != nil {
		l.errorf(at, KindFile, "", "could not read test file %q: %s", displayPath(abs, l.cwd), errText(err))
		return
	}
	defer l.inFile(abs)()
	if strings.TrimSpace(string(src)) == "" {
		l.warnf(nil, KindStructure, "", "the test file is empty")
		return
	}
	if ext == ".jsonl" {
		l.src = nil
		for i, line := range bytes.Split(src, []byte("\n")) {
			if n := l.jsonlNode(line, i+1); n != nil {
				l.interpolateEnv(n, map[*yaml.Node]bool{})
				l.addCase(l.v4Test(sx, n))
			}
		}
		return
	}
	doc := l.v4Doc(src)
	if doc == nil {
		return
	}
	list := l.rootOf(doc, yaml.SequenceNode, func(got string) string {
		return "a test file must be a YAML list of tests, got " + got
	})
	if list == nil {
		return
	}
	for _, item := range list.Content {
		l.addCase(l.v4Test(sx, item))
	}
}

// v4Doc parses a 4.x test or case file (the loader's current file) and interpolates its
// environment references; nil when it does not parse (reported).
func (l *loader) v4Doc(src []byte) *yaml.Node {
	l.src = src
	doc := l.parseYAML(src)
	if doc != nil {
		l.interpolateEnv(doc, map[*yaml.Node]bool{})
	}
	return doc
}

// v4Test converts one 4.x test into the loader's case form and parses it.
func (l *loader) v4Test(sx *v4Suite, item *yaml.Node) *Case {
	n := deref(item)
	if n == nil || n.Kind != yaml.MappingNode {
		l.errorf(cmp.Or(n, item), KindCase, "", "a test must be a mapping with id, input and criteria, expected_output or assertions, got %s (case not loaded)", kindName(n))
		return nil
	}
	es := entries(n)
	f := kvs(es)
	id := ""
	if e := f.get("id"); e != nil && e.v.Kind == yaml.ScalarNode {
		id = e.v.Value
	}
	failed := false
	fail := func(at *yaml.Node, format string, args ...any) {
		failed = true
		l.errorf(at, KindCase, id, "%s", fmt.Sprintf(format, args...)+notLoaded(id))
	}
	for _, e := range es {
		switch {
		case slices.Contains(v4TestKeys, e.key), slices.Contains(v4ConversationKeys, e.key):
		case e.key == "workspace":
			l.warnf(e.kn, KindIgnored, id, "%q is not supported yet (ignored)", e.key)
		default:
			l.unknownKey(e, "in test", id, slices.Concat(v4TestKeys, v4ConversationKeys))
		}
	}
	var vars *yaml.Node // the test's vars, a mapping
	if e := f.get("vars"); e != nil && !isNull(e.v) {
		if vars = e.v; vars.Kind != yaml.MappingNode {
			fail(e.v, "%q must be a mapping of names to values, got %s", "vars", kindName(e.v))
			vars = nil
		}
	}
	sub := func(e *kv) *yaml.Node {
		switch {
		case e == nil || isNull(e.v):
			return nil
		case vars == nil:
			return e.v
		}
		return substVars(deref(e.v), vars, 0)
	}

	skipDefaults := false
	var execEvals *kv // execution.evaluators: a test's graders when it has no assertions
	var targets []string
	var testThreshold *float64
	l.execution(f.get("execution"), id, v4TestExecKeys, "skip_defaults and targets", fail, func(xe *kv) bool {
		switch xe.key {
		case "skip_defaults":
			if c := classify(xe.v); xe.v.Kind != yaml.ScalarNode || c != scalarBool && c != scalarNull {
				fail(xe.v, "execution %q must be true or false, got %s", "skip_defaults", describe(xe.v))
			} else {
				skipDefaults = strings.EqualFold(xe.v.Value, "true")
			}
		case "targets":
			targets = l.stringList(xe, id)
		case "threshold":
			testThreshold = threshold(xe, fail)
		case "evaluators":
			execEvals = v4ExecList(xe)
		case "target", "trials", "assertions":
			l.warnf(xe.kn, KindIgnored, id, "a test's execution %q is ignored (as in AgentV 4.x): %s", xe.key, v4TestExecIgnored[xe.key])
		default:
			return false
		}
		return true
	})

	// The case's fields; values keep their source positions.
	var cf caseFields
	criteria := f.get("criteria")
	if e := f.get("expected_outcome"); criteria == nil && e != nil && !isNull(e.v) {
		criteria = e
		l.warnf(e.kn, KindIgnored, id, "%q is deprecated: write %q", "expected_outcome", "criteria")
	}
	if v := sub(criteria); v != nil {
		cf.outcome = &kv{key: criteria.key, kn: criteria.kn, v: v}
	}
	expected := f.get("expected_output")
	if v := sub(expected); v != nil {
		cf.expected = &kv{key: expected.key, kn: expected.kn, v: v}
	}
	cf.conversation = f.get("conversation_id")

	// Input: the suite's input, then the test's, whose string may carry input_files.
	input := f.get("input")
	var msgs []*yaml.Node
	if sx.input != nil && !isNull(sx.input.v) && !skipDefaults {
		msgs = append(msgs, l.v4Messages(sub(sx.input), fail)...)
	}
	// A test's own input_files replaces the suite's; `input_files: null` is not its own, as
	// 4.42.4 takes `raw.input_files ?? suiteInputFiles` (loaders/shorthand-expansion.ts).
	files := f.get("input_files")
	if (files == nil || isNull(files.v)) && !skipDefaults {
		files = sx.inputFiles
	}
	if iv, fv := sub(input), sub(files); iv != nil && fv != nil {
		if m := l.v4InputFiles(fv, iv, fail); m != nil {
			msgs = append(msgs, m)
		}
	} else if iv != nil {
		msgs = append(msgs, l.v4Messages(iv, fail)...)
	}
	if input == nil || isNull(input.v) {
		fail(n, "test has no %q", "input")
	} else if len(msgs) > 0 {
		cf.input = &kv{key: "input_messages", kn: input.kn, v: seqNode(input.v, msgs...)}
	}

	// Assertions: the test's own, then the suite's unless skip_defaults. Its own are the first
	// set of assertions, assert, execution.evaluators and evaluators, as 4.42.4 picks them
	// (loaders/grader-parser.ts, parseGraders); only the first two make a test complete.
	complete := f.get("assertions") != nil || f.get("assert") != nil
	asserts := l.firstList([]*kv{f.get("assertions"), f.get("assert"), execEvals, f.get("evaluators")}, id, "assertions")
	var evals []*yaml.Node
	declared := false
	// A test's `rubrics` is one more rubric grader, ahead of all others (yaml-parser.ts,
	// parseInlineRubrics).
	if e := f.get("rubrics"); e != nil && !isNull(e.v) {
		if g := l.v4InlineRubrics(e, id, fail); g != nil {
			declared = true
			evals = append(evals, g)
		}
	}
	if asserts != nil {
		declared = true
		if asserts.v.Kind != yaml.SequenceNode {
			fail(asserts.v, "%q must be a list of assertions, got %s", asserts.key, kindName(asserts.v))
		} else {
			evals = append(evals, l.v4Assertions(asserts.v, id, fail)...)
		}
	}
	if sx.asserts != nil && !isNull(sx.asserts.v) && !skipDefaults {
		declared = true
		if sx.asserts.v.Kind != yaml.SequenceNode {
			failed = true // reported once, at the suite's assertions
		} else {
			evals = append(evals, l.v4Assertions(sx.asserts.v, id, fail)...)
		}
	}
	if declared {
		at := n
		if asserts != nil {
			at = asserts.kn
		}
		cf.evals = &kv{key: "evaluators", kn: at, v: seqNode(at, evals...)}
	}
	conv, convOK := l.v4Conversation(n, f, id, sub, fail)
	failed = failed || !convOK
	if criteria == nil && expected == nil && !complete && f.get("mode") == nil && !failed {
		hint := ""
		if asserts != nil {
			hint = fmt.Sprintf(" (%q alone does not count, as in AgentV 4.x)", asserts.key)
		}
		fail(n, "test needs %q, %q or %q to be scored%s", "criteria", "expected_output", "assertions", hint)
	}
	if failed {
		if _, dup := l.ids[id]; id != "" && !dup {
			l.ids[id] = n.Line // a later test with this id is still a duplicate
		}
		return nil
	}
	c := l.newCase(n, f.get("id")).build(cf)
	if c == nil {
		return nil
	}
	c.Targets, c.Threshold, c.Conversation = targets, testThreshold, conv
	// The test's metadata as written: 4.42.4 substitutes no vars in it.
	c.Metadata = v4Metadata(sx.metadata, l.v4MetadataOf(f.get("metadata"), id))
	if l.s.Format == "jsonl" {
		l.jsonlDependencies(f, id)
	} else if d := l.v4Dependencies(f, id, c); d != nil {
		l.deps[c] = d
	}
	return c
}

// v4Messages expands 4.x input shorthand: a string, or a mapping without a role (structured
// content), is one user message; a mapping with a role is a message; a list is messages.
func (l *loader) v4Messages(n *yaml.Node, fail func(*yaml.Node, string, ...any)) []*yaml.Node {
	switch n = deref(n); {
	case n.Kind == yaml.MappingNode && hasKey(n, "role"):
		return []*yaml.Node{n}
	case n.Kind == yaml.ScalarNode, n.Kind == yaml.MappingNode:
		return []*yaml.Node{userMessage(n, n)}
	case n.Kind == yaml.SequenceNode:
		return n.Content
	}
	fail(n, "input must be a string, a message or a list of messages, got %s", kindName(n))
	return nil
}

func userMessage(at, content *yaml.Node) *yaml.Node {
	return mapping(at, "role", strNode(at, RoleUser), "content", content)
}

// v4InputFiles builds the user message of `input_files` with a string input: one file block
// per path, then the text.
func (l *loader) v4InputFiles(files, input *yaml.Node, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	switch files, input = deref(files), deref(input); {
	case files.Kind != yaml.SequenceNode:
		fail(files, "%q must be a list of file paths, got %s", "input_files", kindName(files))
		return nil
	case input.Kind != yaml.ScalarNode:
		fail(input, "%q needs a string %q, got %s", "input_files", "input", kindName(input))
		return nil
	case len(files.Content) == 0:
		// 4.42.4 skips the test as incomplete (shorthand-expansion.ts, expandInputFilesShorthand).
		fail(files, "%q is empty: list the files the test gets, or remove it", "input_files")
		return nil
	}
	block := func(at *yaml.Node, typ string, v *yaml.Node) *yaml.Node {
		return mapping(at, "type", strNode(at, typ), "value", v)
	}
	content := seqNode(input)
	for _, p := range files.Content {
		if p = deref(p); p == nil || p.Kind != yaml.ScalarNode || isNull(p) {
			fail(p, "%q items must be file paths, got %s", "input_files", kindName(p))
			return nil
		}
		content.Content = append(content.Content, block(p, "file", p))
	}
	content.Content = append(content.Content, block(input, "text", input))
	return userMessage(input, content)
}

// v4Assertions converts a 4.x assertion list into evaluator entries. Plain strings become one
// rubric grader at the first string's place, weighted by the number of criteria.
func (l *loader) v4Assertions(list *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) []*yaml.Node {
	if list = deref(list); list.Kind != yaml.SequenceNode {
		fail(list, "%q must be a list of assertions, got %s", "assertions", kindName(list))
		return nil
	}
	items, ok := l.expandIncludes(list.Content, l.roots, nil, fail)
	if !ok {
		return nil
	}
	var out []*yaml.Node
	var rubric, criteria *yaml.Node // the rubric grader and its criteria, once a string is seen
	for _, item := range items {
		switch d := deref(item); {
		case isString(d) && strings.TrimSpace(d.Value) == "":
			l.warnf(d, KindEvaluator, id, "empty assertion string skipped")
		case isString(d):
			if criteria == nil {
				criteria = seqNode(d)
				rubric = mapping(d, "type", strNode(d, TypeLLMJudge), "name", strNode(d, "rubrics"), "rubrics", criteria)
				out = append(out, rubric)
			}
			t := *d
			t.Value = strings.TrimSpace(d.Value)
			criteria.Content = append(criteria.Content, &t)
		case d != nil && d.Kind == yaml.MappingNode:
			if e := l.v4Assertion(d, id, fail); e != nil {
				out = append(out, e)
			}
		default:
			fail(d, "an assertion must be a mapping with a type or a criterion string, got %s", kindName(d))
		}
	}
	if rubric != nil {
		rubric.Content = append(rubric.Content, strNode(criteria, "weight"), intNode(criteria, len(criteria.Content)))
	}
	return out
}

// v4Assertion converts one 4.x grader mapping; nil when it is skipped.
func (l *loader) v4Assertion(n *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	t := valueOf(n, "type")
	if t == nil || t.Kind != yaml.ScalarNode || isNull(t) {
		return n // reported by the evaluator parser, with the valid types
	}
	typ := strings.ReplaceAll(t.Value, "_", "-")
	if typ == "llm-judge" || typ == "code-judge" {
		l.warnf(t, KindEvaluator, id, "assertion type %q is no longer accepted by AgentV 4.x: write %q (skipped)", t.Value, strings.Replace(typ, "-judge", "-grader", 1))
		return nil
	}
	if _, builtin := v4Types[typ]; !builtin && !l.isType(typ) && !l.isType(t.Value) {
		script, searched := l.customScript(typ)
		if script == "" {
			fail(t, "%s", l.unknownType(t.Value, typ, searched))
			return nil
		}
		n = customAssertion(n, typ, script)
		t, typ = valueOf(n, "type"), "code-grader"
	}
	value, keep := l.v4DeterministicValue(typ, n, id)
	if !keep {
		return nil
	}
	out := mapping(n)
	hasName := false
	for _, e := range entries(n) {
		k, v := e.kn, e.v
		switch {
		case e.key == "type":
			v = strNode(t, cmp.Or(v4Types[typ], typ))
		case e.key == "value" && value != nil:
			v = value
		case e.key == "name":
			hasName = true
		case e.key == "preprocessors":
			l.warnf(k, KindIgnored, id, "assertion setting %q is not supported yet (ignored)", e.key)
			continue
		case typ == "llm-grader" && (e.key == "max_steps" || e.key == "maxSteps"):
			// Only AgentV's built-in agent grader (provider agentv) takes steps; no judge here does.
			l.warnf(k, KindIgnored, id, "llm-grader %q is ignored: it only limits the steps of AgentV's built-in agent grader", e.key)
		case typ == "llm-grader" && e.key == "temperature":
			// AgentV 4.x sends it only when the grader names its own target.
			if f, ok := number(v); !ok || f < 0 || f > 2 {
				l.warnf(v, KindIgnored, id, "llm-grader %q must be a number from 0 to 2, got %s (ignored)", e.key, describe(v))
			} else if t := valueOf(n, "target"); t == nil || isNull(t) {
				l.warnf(k, KindIgnored, id, "llm-grader %q is ignored without the grader's own %q (as in AgentV 4.x): set temperature on the judge's target", e.key, "target")
			}
		case typ == "rubrics" && e.key == "temperature":
			l.warnf(k, KindIgnored, id, "rubrics %q is ignored (as in AgentV 4.x)", e.key)
			continue
		case typ == "code-grader" && e.key == "command":
			k = strNode(k, "script")
		case typ == "rubrics" && e.key == "criteria", typ == "llm-grader" && e.key == "rubrics":
			k = strNode(k, "rubrics")
			if v.Kind == yaml.SequenceNode {
				items := seqNode(v)
				for _, it := range v.Content {
					items.Content = append(items.Content, l.v4Rubric(deref(it), id))
				}
				v = items
			}
		case typ == "llm-grader" && e.key == "prompt" && v.Kind == yaml.MappingNode:
			v = replaceKey(v, "command", "script", nil)
		case typ == "composite" && (e.key == "assertions" || e.key == "assert"):
			k = strNode(k, "evaluators")
			if v.Kind == yaml.SequenceNode {
				for _, m := range v.Content {
					if w := valueOf(deref(m), "weight"); w != nil {
						l.warnf(w, KindIgnored, id, "a composite member's %q is not used (as in AgentV 4.x): give it in the aggregator's %q, by member name", "weight", "weights")
					}
				}
				v = seqNode(v, l.v4Assertions(v, id, fail)...)
			}
		case typ == "composite" && e.key == "aggregator" && v.Kind == yaml.MappingNode:
			if at := valueOf(v, "type"); at != nil && at.Kind == yaml.ScalarNode {
				if m, ok := v4Types[strings.ReplaceAll(at.Value, "_", "-")]; ok && m != "composite" {
					v = replaceKey(v, "type", "", strNode(at, m))
				}
			}
			v = l.v4AggregatorPrompt(v, id)
		}
		out.Content = append(out.Content, k, v)
	}
	if !hasName {
		out.Content = append(out.Content, strNode(n, "name"), strNode(n, v4Name(typ, n)))
	}
	return out
}

// v4AggregatorPrompt reads a composite aggregator's `prompt` naming a file without `file://`
// as that file (file:// and its absolute path), as 4.42.4's docs say (`prompt:
// ./prompts/conflict-resolution.md`), with a warning: 4.42.4's code sends it as text.
func (l *loader) v4AggregatorPrompt(agg *yaml.Node, id string) *yaml.Node {
	p := deref(valueOf(agg, "prompt"))
	if p == nil || p.Kind != yaml.ScalarNode {
		return agg
	}
	t := strings.TrimSpace(p.Value)
	abs := ""
	if !strings.HasPrefix(t, v4PromptFilePrefix) {
		abs = l.bareFile(t)
	}
	if abs == "" {
		return agg
	}
	l.warnf(p, KindTemplate, id, "aggregator prompt %q is read as the file it names, as AgentV 4.x's documentation says; AgentV 4.42.4 sends the words %q themselves", t, t)
	return replaceKey(agg, "prompt", "", strNode(p, v4PromptFilePrefix+abs))
}

// v4DeterministicValue reads the `value` of a deterministic assertion as AgentV 4.42.4 does
// (packages/core/src/evaluation/loaders/grader-parser.ts, parseGraderList): a single-value
// type takes only a string, a list type only a list, of which only the strings count. Another
// shape (`equals: 5`) skips the entry with a warning (false), as 4.42.4 does; a missing or
// empty value stays a load error (see validate). A list whose items were dropped is returned.
func (l *loader) v4DeterministicValue(typ string, n *yaml.Node, id string) (*yaml.Node, bool) {
	v := deref(valueOf(n, "value"))
	if v == nil || isNull(v) {
		return nil, true
	}
	skip := func(format string, args ...any) (*yaml.Node, bool) {
		l.warnf(v, KindEvaluator, id, "%s assertion skipped, as AgentV 4.42.4 skips it: "+format, append([]any{typ}, args...)...)
		return nil, false
	}
	switch typ {
	case "contains", "icontains", "starts-with", "ends-with", "regex", "equals":
		switch {
		case isString(v):
			return nil, true
		case v.Kind == yaml.ScalarNode:
			return skip("its value must be a string, got %s (quote it to compare the text: %q)", describeScalar(v), v.Value)
		}
		return skip("its value must be a string, got %s", kindName(v))
	case "contains-any", "contains-all", "icontains-any", "icontains-all":
		switch {
		case isString(v):
			return skip("its value must be a list of strings, got the string %q (write [%q])", v.Value, v.Value)
		case v.Kind != yaml.SequenceNode:
			return skip("its value must be a list of strings, got %s", describeValue(v))
		}
		kept := seqNode(v)
		var dropped []*yaml.Node
		for _, it := range v.Content {
			if isString(it) {
				kept.Content = append(kept.Content, it)
			} else {
				dropped = append(dropped, deref(it))
			}
		}
		switch {
		case len(dropped) == 0:
			return nil, true
		case len(kept.Content) == 0:
			return skip("its value holds no string")
		}
		for _, d := range dropped {
			l.warnf(d, KindEvaluator, id, "%s value item ignored, as AgentV 4.42.4 ignores it: only strings are looked for, got %s", typ, describeValue(d))
		}
		return kept, true
	}
	return nil, true
}

// isString reports whether n, aliases followed, is a string scalar.
func isString(n *yaml.Node) bool {
	n = deref(n)
	return n != nil && n.Kind == yaml.ScalarNode && classify(n) == scalarString
}

// describeScalar names a YAML scalar that is not a string for messages: "the number 5",
// "the boolean true".
func describeScalar(n *yaml.Node) string {
	switch classify(n) {
	case scalarInt, scalarFloat:
		return "the number " + n.Value
	case scalarBool:
		return "the boolean " + n.Value
	case scalarNull:
		return "null"
	}
	return fmt.Sprintf("the string %q", n.Value)
}

// describeValue is describeScalar for scalars, else the kind of node.
func describeValue(n *yaml.Node) string {
	if n != nil && n.Kind == yaml.ScalarNode {
		return describeScalar(n)
	}
	return kindName(n)
}

// v4Name is the name 4.x gives an unnamed grader: its type, with the value for the
// single-value deterministic assertions.
func v4Name(typ string, n *yaml.Node) string {
	v := deref(valueOf(n, "value"))
	// Only a non-empty string value names the grader: 4.x names `value: 43` plainly `contains`.
	scalar := isString(v) && v.Value != ""
	switch typ {
	case "contains", "icontains", "starts-with", "ends-with", "equals":
		if scalar {
			return typ + "-" + v.Value
		}
	case "regex":
		if scalar {
			r := []rune(v.Value)
			return typ + "-" + string(r[:min(len(r), 30)])
		}
	case "contains-any", "contains-all", "icontains-any", "icontains-all":
		if v != nil && v.Kind == yaml.SequenceNode {
			return typ + "-" + strconv.Itoa(len(v.Content))
		}
	case "skill-trigger":
		if s := deref(valueOf(n, "skill")); isString(s) && s.Value != "" {
			return typ + "-" + s.Value
		}
	}
	return typ
}

func strNode(at *yaml.Node, s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle, Line: at.Line, Column: at.Column}
}

func intNode(at *yaml.Node, i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i), Line: at.Line, Column: at.Column}
}

func seqNode(at *yaml.Node, items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: at.Line, Column: at.Column, Content: items}
}

// mapping builds a mapping at at's position from key, value pairs.
func mapping(at *yaml.Node, kvs ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: at.Line, Column: at.Column}
	for i := 0; i+1 < len(kvs); i += 2 {
		m.Content = append(m.Content, strNode(at, kvs[i].(string)), kvs[i+1].(*yaml.Node))
	}
	return m
}

// replaceKey returns a copy of mapping m with key renamed to newKey (unless "") and its
// value replaced by v (unless nil).
func replaceKey(m *yaml.Node, key, newKey string, v *yaml.Node) *yaml.Node {
	c := *m
	c.Content = slices.Clone(m.Content)
	for i := 0; i+1 < len(c.Content); i += 2 {
		if c.Content[i].Value != key {
			continue
		}
		if newKey != "" {
			c.Content[i] = strNode(c.Content[i], newKey)
		}
		if v != nil {
			c.Content[i+1] = v
		}
	}
	return &c
}

// substVars returns n with `{{ name }}` and `{{ a.b }}` replaced from vars in every string.
// A string that is exactly one reference takes the variable's value whatever its type;
// inside text, non-string values are written as JSON. Unknown names stay as written.
func substVars(n, vars *yaml.Node, depth int) *yaml.Node {
	if n == nil || depth > 64 {
		return n
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if !isString(n) || !strings.Contains(n.Value, "{{") {
			return n
		}
		if m := wholeVarPattern.FindStringSubmatch(n.Value); m != nil {
			return cmp.Or(lookupVar(vars, m[1]), n)
		}
		c := *n
		c.Value = varPattern.ReplaceAllStringFunc(n.Value, func(ref string) string {
			v := lookupVar(vars, varPattern.FindStringSubmatch(ref)[1])
			switch {
			case v == nil:
				return ref
			case isString(v):
				return v.Value
			}
			b, err := toJSON(v)
			if err != nil {
				return ref
			}
			return string(b)
		})
		c.Tag, c.Style = "!!str", yaml.DoubleQuotedStyle
		return &c
	case yaml.SequenceNode, yaml.MappingNode:
		c := *n
		c.Content = slices.Clone(n.Content)
		for i, x := range n.Content {
			if n.Kind == yaml.SequenceNode || i%2 == 1 {
				c.Content[i] = substVars(deref(x), vars, depth+1)
			}
		}
		return &c
	}
	return n
}

func lookupVar(vars *yaml.Node, path string) *yaml.Node {
	cur := deref(vars)
	for _, part := range strings.Split(path, ".") {
		if cur == nil || cur.Kind != yaml.MappingNode {
			return nil
		}
		cur = valueOf(cur, part)
	}
	return cur
}

// v4InlineRubrics converts a test's `rubrics` into the rubric grader 4.42.4 makes of it: named
// "rubrics", weight 1; a string is a criterion with id rubric-<place>, a mapping is read by its
// `outcome` only (not 2.5's description or expected_outcome). Nil when empty or failed.
func (l *loader) v4InlineRubrics(e *kv, id string, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	list := deref(e.v)
	if list.Kind != yaml.SequenceNode {
		fail(list, "%q must be a list of rubric strings or mappings, got %s", "rubrics", kindName(list))
		return nil
	}
	items := seqNode(list)
	for i, it := range list.Content {
		d := deref(it)
		switch {
		case isString(d):
			items.Content = append(items.Content, d)
			continue
		case d == nil || d.Kind != yaml.MappingNode:
			fail(d, "rubric %d must be a string or a mapping with %q, got %s", i+1, "outcome", kindName(d))
			return nil
		}
		m := mapping(d)
		hasOutcome, hasRanges := false, false
		for _, x := range entries(d) {
			switch x.key {
			case "description", "expected_outcome", "criteria":
				l.warnf(x.kn, KindIgnored, id, "%q is not read in a test's rubrics (as in AgentV 4.x): write %q", x.key, "outcome")
				continue
			case "outcome":
				hasOutcome = x.v.Kind == yaml.ScalarNode && strings.TrimSpace(x.v.Value) != ""
			case "score_ranges":
				hasRanges = !isNull(x.v)
			}
			m.Content = append(m.Content, x.kn, x.v)
		}
		if !hasOutcome && !hasRanges {
			fail(d, "rubric %d has no %q (AgentV 4.x reads a test's rubric text from %q alone, and drops the rubric without it)", i+1, "outcome", "outcome")
			return nil
		}
		items.Content = append(items.Content, l.v4Rubric(m, id))
	}
	if len(items.Content) == 0 {
		return nil
	}
	return mapping(e.kn, "type", strNode(e.kn, TypeLLMJudge), "name", strNode(e.kn, "rubrics"), "rubrics", items)
}

// v4Rubric converts one 4.x rubric criterion: `outcome` is the expected outcome, `operator` is
// checked, `score_ranges` may be a map from lower bounds to descriptions, `min_score` passes.
func (l *loader) v4Rubric(n *yaml.Node, id string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n // strings are criteria as they are; anything else is reported by the grader
	}
	out := mapping(n)
	hasOutcome := hasKey(n, "expected_outcome")
	for _, e := range entries(n) {
		k, v := e.kn, e.v
		switch e.key {
		case "outcome", "criteria":
			if hasOutcome {
				continue
			}
			hasOutcome = true
			k = strNode(k, "expected_outcome")
		case "operator":
			if v.Kind != yaml.ScalarNode || !slices.Contains(v4RubricOperators, v.Value) {
				l.warnf(v, KindEvaluator, id, "rubric %q must be one of %s, got %s (ignored)", "operator", strings.Join(v4RubricOperators, ", "), describe(v))
				continue
			}
		case "score_ranges":
			v = v4ScoreRanges(v)
		}
		out.Content = append(out.Content, k, v)
	}
	return out
}

// v4ScoreRanges turns the shorthand map {"0": text, "4": text, ...} into score-range items
// (each band up to the next lower bound, the last up to 10) and renames `outcome` in items.
func v4ScoreRanges(v *yaml.Node) *yaml.Node {
	items := seqNode(v)
	switch v.Kind {
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it = deref(it); it.Kind == yaml.MappingNode && !hasKey(it, "expected_outcome") {
				it = replaceKey(it, "outcome", "expected_outcome", nil)
			}
			items.Content = append(items.Content, it)
		}
	case yaml.MappingNode:
		es := entries(v)
		bounds := make([]int, 0, len(es))
		text := map[int]*yaml.Node{}
		for _, e := range es {
			b, err := strconv.Atoi(e.key)
			if err != nil || b < 0 || b > 10 || e.v.Kind != yaml.ScalarNode {
				return v // not the shorthand: the grader reports it
			}
			bounds = append(bounds, b)
			text[b] = e.v
		}
		slices.Sort(bounds)
		for i, b := range bounds {
			hi := 10
			if i+1 < len(bounds) {
				hi = bounds[i+1] - 1
			}
			t := text[b]
			rng := seqNode(t, intNode(t, b), intNode(t, hi))
			items.Content = append(items.Content, mapping(t, "score_range", rng, "expected_outcome", t))
		}
	default:
		return v
	}
	return items
}
