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

// Dialect5 is AgentV 5.x (`prompts`, `tests[].vars`, `assert`, `evaluate_options`), the
// promptfoo-shaped format of AgentV 5.0.0-next.1 … 5.3.1-next.1.
const Dialect5 = "5"

// DialectPromptfoo is a promptfoo config (`providers`, `defaultTest`, `tests[].description`),
// read through the AgentV 5.x front-end: AgentV 5 modelled its suites on promptfoo's, so this
// front-end only renames promptfoo's keys into 5.x's, turns `providers` into the suite's own
// targets and sets promptfoo's scoring rules (docs/promptfoo.md).
const DialectPromptfoo = "promptfoo"

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
func (l *Reader) dialectOf(root *yaml.Node) string {
	for _, fe := range frontEnds {
		if mine, ok := fe.Detect(l, root); !ok {
			return ""
		} else if mine {
			return fe.Dialect
		}
	}
	var tests, legacy *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value == "tests" {
			tests = k
		} else if slices.Contains(CaseListKeys, k.Value) {
			legacy = cmp.Or(legacy, k)
		}
	}
	switch {
	case tests != nil && legacy != nil:
		l.Errorf(legacy, KindStructure, "", "the file mixes two dialects: %q (AgentV 4.x) at line %d and %q (AgentV 2.5) at line %d; keep one of them",
			"tests", tests.Line, legacy.Value, legacy.Line)
		return ""
	case tests != nil:
		return Dialect4
	}
	return Dialect25
}

// TypedValue reports whether an environment value keeps its type when it is a whole scalar
// (a boolean or a plain number).
func TypedValue(v string) bool {
	return v == "true" || v == "false" || plainNumber.MatchString(v)
}

// interpolateEnv replaces `${{ VAR }}` in every scalar value below n, in place. A value that
// is exactly one reference takes the variable's type (see typedValue); an unset variable
// becomes empty, with a warning.
func (l *Reader) interpolateEnv(n *yaml.Node, seen map[*yaml.Node]bool) {
	EachValue(n, seen, func(n *yaml.Node) {
		if !strings.Contains(n.Value, "${{") {
			return
		}
		lookup := func(name string) string { return l.EnvValue(n, name, "${{ "+name+" }}") }
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
		if m := wholeEnvRefPattern.FindStringSubmatch(n.Value); m != nil {
			if n.Value = lookup(m[1]); TypedValue(n.Value) {
				n.Style = 0
			}
			return
		}
		n.Value = envRefPattern.ReplaceAllStringFunc(n.Value, func(ref string) string {
			return lookup(envRefPattern.FindStringSubmatch(ref)[1])
		})
	})
}

// EachValue calls fn on every scalar value below n (mapping keys left out), each once.
func EachValue(n *yaml.Node, seen map[*yaml.Node]bool, fn func(*yaml.Node)) {
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
			EachValue(c, seen, fn)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			EachValue(n.Content[i], seen, fn)
		}
	case yaml.AliasNode:
		EachValue(n.Alias, seen, fn)
	case yaml.ScalarNode:
		fn(n)
	}
}

// EnvValue is an environment variable's value for the reference ref at n: empty, with a
// warning, when it is unset. Any value may be a key, so it is masked, except numbers and
// booleans, which cannot be one and would mask every such number in the reports.
func (l *Reader) EnvValue(n *yaml.Node, name, ref string) string {
	v, ok := l.env(name)
	if !ok {
		l.Warnf(n, KindConfig, "", "environment variable %s is not set; %s becomes empty", name, ref)
		return ""
	}
	if strings.TrimSpace(v) != "" && l.opts.Secret != nil && !TypedValue(v) {
		l.opts.Secret(v)
	}
	return v
}

// env looks a `${{ VAR }}` variable up: LoadOptions.Env's lookup, else the process environment.
func (l *Reader) env(name string) (string, bool) {
	if l.envFor == nil && l.opts.Env != nil {
		l.envFor = l.opts.Env(l.Suite.Dir, l.Suite.RepoRoot)
	}
	if l.envFor == nil {
		l.envFor = os.LookupEnv
	}
	return l.envFor(name)
}

// v4Suite holds what a 4.x suite passes on to each of its tests.
type v4Suite struct {
	asserts, input, inputFiles *Entry
	metadata                   *yaml.Node // the file's `metadata`, nil if none
}

// loadV4 reads the root mapping of an AgentV 4.x file.
func (l *Reader) loadV4(root *yaml.Node) {
	l.Suite.SetDialect(Dialect4)
	// 4.42.4 names a suite without `name` after its file less `.eval.yaml` (yaml-parser.ts,
	// fallbackSuiteName): the same dataset keeps cases matched with its run directories.
	if n := len(l.Suite.Dataset) - len(".eval"); n > 0 && strings.EqualFold(l.Suite.Dataset[n:], ".eval") {
		l.Suite.Dataset = l.Suite.Dataset[:n]
	}
	l.interpolateEnv(root, map[*yaml.Node]bool{})
	es := MapEntries(root)
	l.Dupes(es, "")
	f := EntryList(es)
	sx := &v4Suite{input: f.Get("input"), inputFiles: f.Get("input_files")}
	var execAsserts []*Entry // execution's assertions, assert and evaluators, in 4.x's order
	for i := range es {
		e := &es[i]
		if l.SuiteKey(e) {
			continue
		}
		switch e.Key {
		case "defaults", "tests", "assertions", "assert", "input", "input_files":
		case "version":
			l.Suite.Version = l.Scalar(e)
		case "tags":
			l.Suite.Tags = l.StringList(e, "")
		case "execution":
			execAsserts = l.v4SuiteExecution(e)
		case "workspace":
			l.v4Workspace(e)
		case "metadata":
			sx.metadata = l.V4MetadataOf(e, "")
		default:
			l.UnknownKey(*e, "at the top level", "", v4TopKeys)
		}
	}
	// The suite's default graders: the first set of assertions, assert, and execution's
	// assertions, assert and evaluators, as 4.42.4 picks them (loaders/grader-parser.ts,
	// parseGraders; an empty key does not count).
	sx.asserts = l.firstList(append([]*Entry{f.Get("assertions"), f.Get("assert")}, execAsserts...), "", "assertions")
	if a := sx.asserts; a != nil && a.Value.Kind != yaml.SequenceNode {
		l.Errorf(a.Value, KindStructure, "", "%q must be a list of assertions, got %s; tests using them are not loaded", a.Key, KindName(a.Value))
	}
	tests := f.Get("tests")
	switch {
	case IsNull(tests.Value):
		l.Errorf(tests.KeyNode, KindStructure, "", "%q is empty: give a list of tests or the path of a .yaml or .jsonl file of tests", "tests")
		return
	case tests.Value.Kind == yaml.ScalarNode:
		if dir, ok := l.isTestDir(tests.Value.Value); ok {
			l.v4TestDir(sx, tests.Value, dir)
		} else {
			l.v4TestFile(sx, tests.Value, tests.Value.Value)
		}
	case tests.Value.Kind == yaml.SequenceNode:
		if len(tests.Value.Content) == 0 {
			l.Warnf(tests.Value, KindStructure, "", "the test list is empty")
		}
		for _, item := range tests.Value.Content {
			if d := Deref(item); d != nil && d.Kind == yaml.ScalarNode && strings.HasPrefix(d.Value, "file://") {
				l.v4TestFile(sx, d, strings.TrimPrefix(d.Value, "file://"))
				continue
			}
			l.AddCase(l.v4Test(sx, item))
			// The test is built: let the collector take its part of the node tree now rather
			// than after the whole file, which halves the peak of a large file. A node with an
			// anchor stays whole, for the aliases that may point to it.
			if item.Anchor == "" && item.Kind == yaml.MappingNode {
				item.Content = nil
			}
		}
	default:
		l.Errorf(tests.Value, KindStructure, "", "%q must be a list of tests or a file path, got %s", "tests", KindName(tests.Value))
	}
	l.CheckDependencies(l.Deps)
}

// V4MetadataOf returns the value of `metadata` e, warning when it is not a mapping.
func (l *Reader) V4MetadataOf(e *Entry, id string) *yaml.Node {
	if e == nil {
		return nil
	}
	if !IsNull(e.Value) && Deref(e.Value).Kind != yaml.MappingNode {
		l.Warnf(e.Value, KindStructure, id, "%q should be a mapping, got %s (ignored)", e.Key, KindName(e.Value))
	}
	return e.Value
}

// firstList picks the grader list a test or suite uses from candidates (nil entries allowed),
// the first set one winning, as 4.42.4's `a ?? b ?? c`. Every other set candidate is named in
// a warning, and so is a chosen one that is not the canonical first (deprecated spellings).
func (l *Reader) firstList(candidates []*Entry, id, canonical string) *Entry {
	chosen := firstSet(candidates, func(e, chosen *Entry) {
		l.Warnf(e.KeyNode, KindIgnored, id, "%q ignored: %q is also set (line %d)", e.Key, chosen.Key, chosen.KeyNode.Line)
	})
	if chosen != nil && chosen != candidates[0] {
		l.Warnf(chosen.KeyNode, KindIgnored, id, "%q is deprecated: write %q", chosen.Key, canonical)
	}
	return chosen
}

// v4ExecList is entry x of execution, its key "execution.<key>" for messages.
func v4ExecList(x *Entry) *Entry {
	c := *x
	c.Key = "execution." + x.Key
	return &c
}

// v4SuiteExecution reads the suite's `execution`; it returns its grader lists (see
// v4GraderLists: 4.42.4 reads them as the suite's default graders).
func (l *Reader) v4SuiteExecution(e *Entry) []*Entry {
	lists := make([]*Entry, len(v4GraderLists))
	l.Execution(e, "", v4ExecKeys, "target, targets, threshold and trials", l.SuiteError, func(x *Entry) bool {
		switch x.Key {
		case "assertions", "assert", "evaluators":
			lists[slices.Index(v4GraderLists, x.Key)] = v4ExecList(x)
		case "target":
			l.execTarget(x)
		case "targets":
			l.Suite.Targets = l.StringList(x, "")
		case "threshold":
			if t := ParseThreshold(x, l.SuiteError); t != nil {
				l.Suite.Threshold = t
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

// StringList reads a string or a list of strings.
func (l *Reader) StringList(e *Entry, caseID string) []string {
	switch {
	case IsNull(e.Value):
		return nil
	case e.Value.Kind == yaml.ScalarNode:
		return []string{e.Value.Value}
	case e.Value.Kind != yaml.SequenceNode:
		l.Errorf(e.Value, KindStructure, caseID, "%q must be a string or a list of strings, got %s", e.Key, KindName(e.Value))
		return nil
	}
	var out []string
	for _, c := range e.Value.Content {
		if c = Deref(c); c == nil || c.Kind != yaml.ScalarNode || IsNull(c) {
			l.Errorf(c, KindStructure, caseID, "%q items must be strings, got %s", e.Key, KindName(c))
			continue
		}
		out = append(out, c.Value)
	}
	return out
}

// v4TestFile loads the tests of an external file (`tests: path` or a `file://` item): a YAML
// list of tests or JSONL, one test a line; a pattern with * ? or { is a glob.
func (l *Reader) v4TestFile(sx *v4Suite, at *yaml.Node, rel string) {
	pattern := AbsPath(l.Suite.Dir, rel)
	files := []string{pattern}
	if strings.ContainsAny(rel, "*?{") {
		matches, err := doublestar.FilepathGlob(pattern, doublestar.WithFilesOnly())
		switch {
		case err != nil:
			l.Errorf(at, KindStructure, "", "bad test file pattern %q: %v", rel, err)
			return
		case len(matches) == 0:
			l.Warnf(at, KindMissingFile, "", "test file pattern %q matched no files", rel)
			return
		}
		slices.Sort(matches)
		files = matches
	}
	for _, f := range files {
		l.v4LoadTestFile(sx, at, f)
	}
}

func (l *Reader) v4LoadTestFile(sx *v4Suite, at *yaml.Node, abs string) {
	ext := strings.ToLower(filepath.Ext(abs))
	if ext != ".yaml" && ext != ".yml" && ext != ".jsonl" {
		l.Errorf(at, KindFile, "", "test file %q: unsupported format %q (want .yaml, .yml or .jsonl)", DisplayPath(abs, l.Cwd), ext)
		return
	}
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	if err != nil {
		l.Errorf(at, KindFile, "", "could not read test file %q: %s", DisplayPath(abs, l.Cwd), ErrText(err))
		return
	}
	defer l.InFile(abs)()
	if strings.TrimSpace(string(src)) == "" {
		l.Warnf(nil, KindStructure, "", "the test file is empty")
		return
	}
	if ext == ".jsonl" {
		l.Src = nil
		for i, line := range bytes.Split(src, []byte("\n")) {
			if n := l.JSONLNode(line, i+1); n != nil {
				l.interpolateEnv(n, map[*yaml.Node]bool{})
				l.AddCase(l.v4Test(sx, n))
			}
		}
		return
	}
	doc := l.v4Doc(src)
	if doc == nil {
		return
	}
	list := l.RootOf(doc, yaml.SequenceNode, func(got string) string {
		return "a test file must be a YAML list of tests, got " + got
	})
	if list == nil {
		return
	}
	for _, item := range list.Content {
		l.AddCase(l.v4Test(sx, item))
	}
}

// v4Doc parses a 4.x test or case file (the loader's current file) and interpolates its
// environment references; nil when it does not parse (reported).
func (l *Reader) v4Doc(src []byte) *yaml.Node {
	l.Src = src
	doc := l.ParseYAML(src)
	if doc != nil {
		l.interpolateEnv(doc, map[*yaml.Node]bool{})
	}
	return doc
}

// v4Test converts one 4.x test into the loader's case form and parses it.
func (l *Reader) v4Test(sx *v4Suite, item *yaml.Node) *Case {
	n := Deref(item)
	if n == nil || n.Kind != yaml.MappingNode {
		l.Errorf(cmp.Or(n, item), KindCase, "", "a test must be a mapping with id, input and criteria, expected_output or assertions, got %s (case not loaded)", KindName(n))
		return nil
	}
	es := MapEntries(n)
	f := EntryList(es)
	id := ""
	if e := f.Get("id"); e != nil && e.Value.Kind == yaml.ScalarNode {
		id = e.Value.Value
	}
	failed := false
	fail := func(at *yaml.Node, format string, args ...any) {
		failed = true
		l.Errorf(at, KindCase, id, "%s", fmt.Sprintf(format, args...)+NotLoaded(id))
	}
	for _, e := range es {
		switch {
		case slices.Contains(v4TestKeys, e.Key), slices.Contains(v4ConversationKeys, e.Key):
		case e.Key == "workspace":
			l.Warnf(e.KeyNode, KindIgnored, id, "%q is not supported yet (ignored)", e.Key)
		default:
			l.UnknownKey(e, "in test", id, slices.Concat(v4TestKeys, v4ConversationKeys))
		}
	}
	var vars *yaml.Node // the test's vars, a mapping
	if e := f.Get("vars"); e != nil && !IsNull(e.Value) {
		if vars = e.Value; vars.Kind != yaml.MappingNode {
			fail(e.Value, "%q must be a mapping of names to values, got %s", "vars", KindName(e.Value))
			vars = nil
		}
	}
	sub := func(e *Entry) *yaml.Node {
		switch {
		case e == nil || IsNull(e.Value):
			return nil
		case vars == nil:
			return e.Value
		}
		return substVars(Deref(e.Value), vars, 0)
	}

	skipDefaults := false
	var execEvals *Entry // execution.evaluators: a test's graders when it has no assertions
	var targets []string
	var testThreshold *float64
	l.Execution(f.Get("execution"), id, v4TestExecKeys, "skip_defaults and targets", fail, func(xe *Entry) bool {
		switch xe.Key {
		case "skip_defaults":
			if c := Classify(xe.Value); xe.Value.Kind != yaml.ScalarNode || c != ScalarBool && c != ScalarNull {
				fail(xe.Value, "execution %q must be true or false, got %s", "skip_defaults", Describe(xe.Value))
			} else {
				skipDefaults = strings.EqualFold(xe.Value.Value, "true")
			}
		case "targets":
			targets = l.StringList(xe, id)
		case "threshold":
			testThreshold = ParseThreshold(xe, fail)
		case "evaluators":
			execEvals = v4ExecList(xe)
		case "target", "trials", "assertions":
			l.Warnf(xe.KeyNode, KindIgnored, id, "a test's execution %q is ignored (as in AgentV 4.x): %s", xe.Key, v4TestExecIgnored[xe.Key])
		default:
			return false
		}
		return true
	})

	// The case's fields; values keep their source positions.
	var cf CaseFields
	criteria := f.Get("criteria")
	if e := f.Get("expected_outcome"); criteria == nil && e != nil && !IsNull(e.Value) {
		criteria = e
		l.Warnf(e.KeyNode, KindIgnored, id, "%q is deprecated: write %q", "expected_outcome", "criteria")
	}
	if v := sub(criteria); v != nil {
		cf.Outcome = &Entry{Key: criteria.Key, KeyNode: criteria.KeyNode, Value: v}
	}
	expected := f.Get("expected_output")
	if v := sub(expected); v != nil {
		cf.Expected = &Entry{Key: expected.Key, KeyNode: expected.KeyNode, Value: v}
	}
	cf.Conversation = f.Get("conversation_id")

	// Input: the suite's input, then the test's, whose string may carry input_files.
	input := f.Get("input")
	var msgs []*yaml.Node
	if sx.input != nil && !IsNull(sx.input.Value) && !skipDefaults {
		msgs = append(msgs, l.V4Messages(sub(sx.input), fail)...)
	}
	// A test's own input_files replaces the suite's; `input_files: null` is not its own, as
	// 4.42.4 takes `raw.input_files ?? suiteInputFiles` (loaders/shorthand-expansion.ts).
	files := f.Get("input_files")
	if (files == nil || IsNull(files.Value)) && !skipDefaults {
		files = sx.inputFiles
	}
	if iv, fv := sub(input), sub(files); iv != nil && fv != nil {
		if m := l.v4InputFiles(fv, iv, fail); m != nil {
			msgs = append(msgs, m)
		}
	} else if iv != nil {
		msgs = append(msgs, l.V4Messages(iv, fail)...)
	}
	if input == nil || IsNull(input.Value) {
		fail(n, "test has no %q", "input")
	} else if len(msgs) > 0 {
		cf.Input = &Entry{Key: "input_messages", KeyNode: input.KeyNode, Value: SeqNode(input.Value, msgs...)}
	}

	// Assertions: the test's own, then the suite's unless skip_defaults. Its own are the first
	// set of assertions, assert, execution.evaluators and evaluators, as 4.42.4 picks them
	// (loaders/grader-parser.ts, parseGraders); only the first two make a test complete.
	complete := f.Get("assertions") != nil || f.Get("assert") != nil
	asserts := l.firstList([]*Entry{f.Get("assertions"), f.Get("assert"), execEvals, f.Get("evaluators")}, id, "assertions")
	var evals []*yaml.Node
	declared := false
	// A test's `rubrics` is one more rubric grader, ahead of all others (yaml-parser.ts,
	// parseInlineRubrics).
	if e := f.Get("rubrics"); e != nil && !IsNull(e.Value) {
		if g := l.v4InlineRubrics(e, id, fail); g != nil {
			declared = true
			evals = append(evals, g)
		}
	}
	if asserts != nil {
		declared = true
		if asserts.Value.Kind != yaml.SequenceNode {
			fail(asserts.Value, "%q must be a list of assertions, got %s", asserts.Key, KindName(asserts.Value))
		} else {
			evals = append(evals, l.V4Assertions(asserts.Value, id, fail)...)
		}
	}
	if sx.asserts != nil && !IsNull(sx.asserts.Value) && !skipDefaults {
		declared = true
		if sx.asserts.Value.Kind != yaml.SequenceNode {
			failed = true // reported once, at the suite's assertions
		} else {
			evals = append(evals, l.V4Assertions(sx.asserts.Value, id, fail)...)
		}
	}
	if declared {
		at := n
		if asserts != nil {
			at = asserts.KeyNode
		}
		cf.Evals = &Entry{Key: "evaluators", KeyNode: at, Value: SeqNode(at, evals...)}
	}
	conv, convOK := l.v4Conversation(n, f, id, sub, fail)
	failed = failed || !convOK
	if criteria == nil && expected == nil && !complete && f.Get("mode") == nil && !failed {
		hint := ""
		if asserts != nil {
			hint = fmt.Sprintf(" (%q alone does not count, as in AgentV 4.x)", asserts.Key)
		}
		fail(n, "test needs %q, %q or %q to be scored%s", "criteria", "expected_output", "assertions", hint)
	}
	if failed {
		if _, dup := l.IDs[id]; id != "" && !dup {
			l.IDs[id] = n.Line // a later test with this id is still a duplicate
		}
		return nil
	}
	c := l.NewCase(n, f.Get("id")).Build(cf)
	if c == nil {
		return nil
	}
	c.Targets, c.Threshold, c.Conversation = targets, testThreshold, conv
	// The test's metadata as written: 4.42.4 substitutes no vars in it.
	c.Metadata = V4Metadata(sx.metadata, l.V4MetadataOf(f.Get("metadata"), id))
	if l.Suite.Format == "jsonl" {
		l.jsonlDependencies(f, id)
	} else if d := l.V4Dependencies(f, id, c); d != nil {
		l.Deps[c] = d
	}
	return c
}

// V4Messages expands 4.x input shorthand: a string, or a mapping without a role (structured
// content), is one user message; a mapping with a role is a message; a list is messages.
func (l *Reader) V4Messages(n *yaml.Node, fail func(*yaml.Node, string, ...any)) []*yaml.Node {
	switch n = Deref(n); {
	case n.Kind == yaml.MappingNode && HasKey(n, "role"):
		return []*yaml.Node{n}
	case n.Kind == yaml.ScalarNode, n.Kind == yaml.MappingNode:
		return []*yaml.Node{userMessage(n, n)}
	case n.Kind == yaml.SequenceNode:
		return n.Content
	}
	fail(n, "input must be a string, a message or a list of messages, got %s", KindName(n))
	return nil
}

func userMessage(at, content *yaml.Node) *yaml.Node {
	return Mapping(at, "role", StrNode(at, RoleUser), "content", content)
}

// v4InputFiles builds the user message of `input_files` with a string input: one file block
// per path, then the text.
func (l *Reader) v4InputFiles(files, input *yaml.Node, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	switch files, input = Deref(files), Deref(input); {
	case files.Kind != yaml.SequenceNode:
		fail(files, "%q must be a list of file paths, got %s", "input_files", KindName(files))
		return nil
	case input.Kind != yaml.ScalarNode:
		fail(input, "%q needs a string %q, got %s", "input_files", "input", KindName(input))
		return nil
	case len(files.Content) == 0:
		// 4.42.4 skips the test as incomplete (shorthand-expansion.ts, expandInputFilesShorthand).
		fail(files, "%q is empty: list the files the test gets, or remove it", "input_files")
		return nil
	}
	block := func(at *yaml.Node, typ string, v *yaml.Node) *yaml.Node {
		return Mapping(at, "type", StrNode(at, typ), "value", v)
	}
	content := SeqNode(input)
	for _, p := range files.Content {
		if p = Deref(p); p == nil || p.Kind != yaml.ScalarNode || IsNull(p) {
			fail(p, "%q items must be file paths, got %s", "input_files", KindName(p))
			return nil
		}
		content.Content = append(content.Content, block(p, "file", p))
	}
	content.Content = append(content.Content, block(input, "text", input))
	return userMessage(input, content)
}

// V4Assertions converts a 4.x assertion list into evaluator entries. Plain strings become one
// rubric grader at the first string's place, weighted by the number of criteria.
func (l *Reader) V4Assertions(list *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) []*yaml.Node {
	if list = Deref(list); list.Kind != yaml.SequenceNode {
		fail(list, "%q must be a list of assertions, got %s", "assertions", KindName(list))
		return nil
	}
	items, ok := l.expandIncludes(list.Content, l.roots, nil, fail)
	if !ok {
		return nil
	}
	var out []*yaml.Node
	var rubric, criteria *yaml.Node // the rubric grader and its criteria, once a string is seen
	for _, item := range items {
		switch d := Deref(item); {
		case IsString(d) && strings.TrimSpace(d.Value) == "":
			l.Warnf(d, KindEvaluator, id, "empty assertion string skipped")
		case IsString(d):
			if criteria == nil {
				criteria = SeqNode(d)
				rubric = Mapping(d, "type", StrNode(d, TypeLLMJudge), "name", StrNode(d, "rubrics"), "rubrics", criteria)
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
			fail(d, "an assertion must be a mapping with a type or a criterion string, got %s", KindName(d))
		}
	}
	if rubric != nil {
		rubric.Content = append(rubric.Content, StrNode(criteria, "weight"), IntNode(criteria, len(criteria.Content)))
	}
	return out
}

// v4Assertion converts one 4.x grader mapping; nil when it is skipped.
func (l *Reader) v4Assertion(n *yaml.Node, id string, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	t := ValueOf(n, "type")
	if t == nil || t.Kind != yaml.ScalarNode || IsNull(t) {
		return n // reported by the evaluator parser, with the valid types
	}
	typ := strings.ReplaceAll(t.Value, "_", "-")
	if typ == "llm-judge" || typ == "code-judge" {
		l.Warnf(t, KindEvaluator, id, "assertion type %q is no longer accepted by AgentV 4.x: write %q (skipped)", t.Value, strings.Replace(typ, "-judge", "-grader", 1))
		return nil
	}
	if _, builtin := v4Types[typ]; !builtin && !l.isType(typ) && !l.isType(t.Value) {
		script, searched := l.customScript(typ)
		if script == "" {
			fail(t, "%s", l.unknownType(t.Value, typ, searched))
			return nil
		}
		n = customAssertion(n, typ, script)
		t, typ = ValueOf(n, "type"), "code-grader"
	}
	value, keep := l.v4DeterministicValue(typ, n, id)
	if !keep {
		return nil
	}
	out := Mapping(n)
	hasName := false
	for _, e := range MapEntries(n) {
		k, v := e.KeyNode, e.Value
		switch {
		case e.Key == "type":
			v = StrNode(t, cmp.Or(v4Types[typ], typ))
		case e.Key == "value" && value != nil:
			v = value
		case e.Key == "name":
			hasName = true
		case e.Key == "preprocessors":
			l.Warnf(k, KindIgnored, id, "assertion setting %q is not supported yet (ignored)", e.Key)
			continue
		case typ == "llm-grader" && (e.Key == "max_steps" || e.Key == "maxSteps"):
			// Only AgentV's built-in agent grader (provider agentv) takes steps; no judge here does.
			l.Warnf(k, KindIgnored, id, "llm-grader %q is ignored: it only limits the steps of AgentV's built-in agent grader", e.Key)
		case typ == "llm-grader" && e.Key == "temperature":
			// AgentV 4.x sends it only when the grader names its own target.
			if f, ok := Number(v); !ok || f < 0 || f > 2 {
				l.Warnf(v, KindIgnored, id, "llm-grader %q must be a number from 0 to 2, got %s (ignored)", e.Key, Describe(v))
			} else if t := ValueOf(n, "target"); t == nil || IsNull(t) {
				l.Warnf(k, KindIgnored, id, "llm-grader %q is ignored without the grader's own %q (as in AgentV 4.x): set temperature on the judge's target", e.Key, "target")
			}
		case typ == "rubrics" && e.Key == "temperature":
			l.Warnf(k, KindIgnored, id, "rubrics %q is ignored (as in AgentV 4.x)", e.Key)
			continue
		case typ == "code-grader" && e.Key == "command":
			k = StrNode(k, "script")
		case typ == "rubrics" && e.Key == "criteria", typ == "llm-grader" && e.Key == "rubrics":
			k = StrNode(k, "rubrics")
			if v.Kind == yaml.SequenceNode {
				items := SeqNode(v)
				for _, it := range v.Content {
					items.Content = append(items.Content, l.v4Rubric(Deref(it), id))
				}
				v = items
			}
		case typ == "llm-grader" && e.Key == "prompt" && v.Kind == yaml.MappingNode:
			v = ReplaceKey(v, "command", "script", nil)
		case typ == "composite" && (e.Key == "assertions" || e.Key == "assert"):
			k = StrNode(k, "evaluators")
			if v.Kind == yaml.SequenceNode {
				for _, m := range v.Content {
					if w := ValueOf(Deref(m), "weight"); w != nil {
						l.Warnf(w, KindIgnored, id, "a composite member's %q is not used (as in AgentV 4.x): give it in the aggregator's %q, by member name", "weight", "weights")
					}
				}
				v = SeqNode(v, l.V4Assertions(v, id, fail)...)
			}
		case typ == "composite" && e.Key == "aggregator" && v.Kind == yaml.MappingNode:
			if at := ValueOf(v, "type"); at != nil && at.Kind == yaml.ScalarNode {
				if m, ok := v4Types[strings.ReplaceAll(at.Value, "_", "-")]; ok && m != "composite" {
					v = ReplaceKey(v, "type", "", StrNode(at, m))
				}
			}
			v = l.v4AggregatorPrompt(v, id)
		}
		out.Content = append(out.Content, k, v)
	}
	if !hasName {
		out.Content = append(out.Content, StrNode(n, "name"), StrNode(n, v4Name(typ, n)))
	}
	return out
}

// v4AggregatorPrompt reads a composite aggregator's `prompt` naming a file without `file://`
// as that file (file:// and its absolute path), as 4.42.4's docs say (`prompt:
// ./prompts/conflict-resolution.md`), with a warning: 4.42.4's code sends it as text.
func (l *Reader) v4AggregatorPrompt(agg *yaml.Node, id string) *yaml.Node {
	p := Deref(ValueOf(agg, "prompt"))
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
	l.Warnf(p, KindTemplate, id, "aggregator prompt %q is read as the file it names, as AgentV 4.x's documentation says; AgentV 4.42.4 sends the words %q themselves", t, t)
	return ReplaceKey(agg, "prompt", "", StrNode(p, v4PromptFilePrefix+abs))
}

// v4DeterministicValue reads the `value` of a deterministic assertion as AgentV 4.42.4 does
// (packages/core/src/evaluation/loaders/grader-parser.ts, parseGraderList): a single-value
// type takes only a string, a list type only a list, of which only the strings count. Another
// shape (`equals: 5`) skips the entry with a warning (false), as 4.42.4 does; a missing or
// empty value stays a load error (see validate). A list whose items were dropped is returned.
func (l *Reader) v4DeterministicValue(typ string, n *yaml.Node, id string) (*yaml.Node, bool) {
	v := Deref(ValueOf(n, "value"))
	if v == nil || IsNull(v) {
		return nil, true
	}
	skip := func(format string, args ...any) (*yaml.Node, bool) {
		l.Warnf(v, KindEvaluator, id, "%s assertion skipped, as AgentV 4.42.4 skips it: "+format, append([]any{typ}, args...)...)
		return nil, false
	}
	switch typ {
	case "contains", "icontains", "starts-with", "ends-with", "regex", "equals":
		switch {
		case IsString(v):
			return nil, true
		case v.Kind == yaml.ScalarNode:
			return skip("its value must be a string, got %s (quote it to compare the text: %q)", describeScalar(v), v.Value)
		}
		return skip("its value must be a string, got %s", KindName(v))
	case "contains-any", "contains-all", "icontains-any", "icontains-all":
		switch {
		case IsString(v):
			return skip("its value must be a list of strings, got the string %q (write [%q])", v.Value, v.Value)
		case v.Kind != yaml.SequenceNode:
			return skip("its value must be a list of strings, got %s", DescribeValue(v))
		}
		kept := SeqNode(v)
		var dropped []*yaml.Node
		for _, it := range v.Content {
			if IsString(it) {
				kept.Content = append(kept.Content, it)
			} else {
				dropped = append(dropped, Deref(it))
			}
		}
		switch {
		case len(dropped) == 0:
			return nil, true
		case len(kept.Content) == 0:
			return skip("its value holds no string")
		}
		for _, d := range dropped {
			l.Warnf(d, KindEvaluator, id, "%s value item ignored, as AgentV 4.42.4 ignores it: only strings are looked for, got %s", typ, DescribeValue(d))
		}
		return kept, true
	}
	return nil, true
}

// IsString reports whether n, aliases followed, is a string scalar.
func IsString(n *yaml.Node) bool {
	n = Deref(n)
	return n != nil && n.Kind == yaml.ScalarNode && Classify(n) == ScalarString
}

// describeScalar names a YAML scalar that is not a string for messages: "the number 5",
// "the boolean true".
func describeScalar(n *yaml.Node) string {
	switch Classify(n) {
	case ScalarInt, ScalarFloat:
		return "the number " + n.Value
	case ScalarBool:
		return "the boolean " + n.Value
	case ScalarNull:
		return "null"
	}
	return fmt.Sprintf("the string %q", n.Value)
}

// DescribeValue is describeScalar for scalars, else the kind of node.
func DescribeValue(n *yaml.Node) string {
	if n != nil && n.Kind == yaml.ScalarNode {
		return describeScalar(n)
	}
	return KindName(n)
}

// v4Name is the name 4.x gives an unnamed grader: its type, with the value for the
// single-value deterministic assertions.
func v4Name(typ string, n *yaml.Node) string {
	v := Deref(ValueOf(n, "value"))
	// Only a non-empty string value names the grader: 4.x names `value: 43` plainly `contains`.
	scalar := IsString(v) && v.Value != ""
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
		if s := Deref(ValueOf(n, "skill")); IsString(s) && s.Value != "" {
			return typ + "-" + s.Value
		}
	}
	return typ
}

func StrNode(at *yaml.Node, s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle, Line: at.Line, Column: at.Column}
}

func IntNode(at *yaml.Node, i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i), Line: at.Line, Column: at.Column}
}

func SeqNode(at *yaml.Node, items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: at.Line, Column: at.Column, Content: items}
}

// Mapping builds a mapping at at's position from key, value pairs.
func Mapping(at *yaml.Node, kvs ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: at.Line, Column: at.Column}
	for i := 0; i+1 < len(kvs); i += 2 {
		m.Content = append(m.Content, StrNode(at, kvs[i].(string)), kvs[i+1].(*yaml.Node))
	}
	return m
}

// ReplaceKey returns a copy of mapping m with key renamed to newKey (unless "") and its
// value replaced by v (unless nil).
func ReplaceKey(m *yaml.Node, key, newKey string, v *yaml.Node) *yaml.Node {
	c := *m
	c.Content = slices.Clone(m.Content)
	for i := 0; i+1 < len(c.Content); i += 2 {
		if c.Content[i].Value != key {
			continue
		}
		if newKey != "" {
			c.Content[i] = StrNode(c.Content[i], newKey)
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
		if !IsString(n) || !strings.Contains(n.Value, "{{") {
			return n
		}
		if m := wholeVarPattern.FindStringSubmatch(n.Value); m != nil {
			return cmp.Or(LookupVar(vars, m[1]), n)
		}
		c := *n
		c.Value = varPattern.ReplaceAllStringFunc(n.Value, func(ref string) string {
			v := LookupVar(vars, varPattern.FindStringSubmatch(ref)[1])
			switch {
			case v == nil:
				return ref
			case IsString(v):
				return v.Value
			}
			b, err := ToJSON(v)
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
				c.Content[i] = substVars(Deref(x), vars, depth+1)
			}
		}
		return &c
	}
	return n
}

func LookupVar(vars *yaml.Node, path string) *yaml.Node {
	cur := Deref(vars)
	for _, part := range strings.Split(path, ".") {
		if cur == nil || cur.Kind != yaml.MappingNode {
			return nil
		}
		cur = ValueOf(cur, part)
	}
	return cur
}

// v4InlineRubrics converts a test's `rubrics` into the rubric grader 4.42.4 makes of it: named
// "rubrics", weight 1; a string is a criterion with id rubric-<place>, a mapping is read by its
// `outcome` only (not 2.5's description or expected_outcome). Nil when empty or failed.
func (l *Reader) v4InlineRubrics(e *Entry, id string, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	list := Deref(e.Value)
	if list.Kind != yaml.SequenceNode {
		fail(list, "%q must be a list of rubric strings or mappings, got %s", "rubrics", KindName(list))
		return nil
	}
	items := SeqNode(list)
	for i, it := range list.Content {
		d := Deref(it)
		switch {
		case IsString(d):
			items.Content = append(items.Content, d)
			continue
		case d == nil || d.Kind != yaml.MappingNode:
			fail(d, "rubric %d must be a string or a mapping with %q, got %s", i+1, "outcome", KindName(d))
			return nil
		}
		m := Mapping(d)
		hasOutcome, hasRanges := false, false
		for _, x := range MapEntries(d) {
			switch x.Key {
			case "description", "expected_outcome", "criteria":
				l.Warnf(x.KeyNode, KindIgnored, id, "%q is not read in a test's rubrics (as in AgentV 4.x): write %q", x.Key, "outcome")
				continue
			case "outcome":
				hasOutcome = x.Value.Kind == yaml.ScalarNode && strings.TrimSpace(x.Value.Value) != ""
			case "score_ranges":
				hasRanges = !IsNull(x.Value)
			}
			m.Content = append(m.Content, x.KeyNode, x.Value)
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
	return Mapping(e.KeyNode, "type", StrNode(e.KeyNode, TypeLLMJudge), "name", StrNode(e.KeyNode, "rubrics"), "rubrics", items)
}

// v4Rubric converts one 4.x rubric criterion: `outcome` is the expected outcome, `operator` is
// checked, `score_ranges` may be a map from lower bounds to descriptions, `min_score` passes.
func (l *Reader) v4Rubric(n *yaml.Node, id string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n // strings are criteria as they are; anything else is reported by the grader
	}
	out := Mapping(n)
	hasOutcome := HasKey(n, "expected_outcome")
	for _, e := range MapEntries(n) {
		k, v := e.KeyNode, e.Value
		switch e.Key {
		case "outcome", "criteria":
			if hasOutcome {
				continue
			}
			hasOutcome = true
			k = StrNode(k, "expected_outcome")
		case "operator":
			if v.Kind != yaml.ScalarNode || !slices.Contains(v4RubricOperators, v.Value) {
				l.Warnf(v, KindEvaluator, id, "rubric %q must be one of %s, got %s (ignored)", "operator", strings.Join(v4RubricOperators, ", "), Describe(v))
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
	items := SeqNode(v)
	switch v.Kind {
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it = Deref(it); it.Kind == yaml.MappingNode && !HasKey(it, "expected_outcome") {
				it = ReplaceKey(it, "outcome", "expected_outcome", nil)
			}
			items.Content = append(items.Content, it)
		}
	case yaml.MappingNode:
		es := MapEntries(v)
		bounds := make([]int, 0, len(es))
		text := map[int]*yaml.Node{}
		for _, e := range es {
			b, err := strconv.Atoi(e.Key)
			if err != nil || b < 0 || b > 10 || e.Value.Kind != yaml.ScalarNode {
				return v // not the shorthand: the grader reports it
			}
			bounds = append(bounds, b)
			text[b] = e.Value
		}
		slices.Sort(bounds)
		for i, b := range bounds {
			hi := 10
			if i+1 < len(bounds) {
				hi = bounds[i+1] - 1
			}
			t := text[b]
			rng := SeqNode(t, IntNode(t, b), IntNode(t, hi))
			items.Content = append(items.Content, Mapping(t, "score_range", rng, "expected_outcome", t))
		}
	default:
		return v
	}
	return items
}

// InputFilesMessage is the user message of `input_files` with a string input (one file block
// per path, then the text), for the front-ends that read the key as 4.x does.
func (l *Reader) InputFilesMessage(files, input *yaml.Node, fail func(*yaml.Node, string, ...any)) *yaml.Node {
	return l.v4InputFiles(files, input, fail)
}
