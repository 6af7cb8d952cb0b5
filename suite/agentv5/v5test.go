package agentv5

import (
	"bytes"
	"cmp"
	"fmt"
	"github.com/agentv/action/suite"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/agentv/action/internal/safefile"
)

var (
	// v5TestKeys are the test keys this front-end reads (EvalTestSchema at v5.3.1-next.1).
	v5TestKeys = []string{"id", "description", "vars", "assert", "options", "execution", "run", "metadata",
		"conversation_id", "depends_on", "on_dependency_failure", "criteria", "threshold",
		"mode", "turns", "aggregation", "on_turn_failure", "window_size", "environment", "input_files"}
	// v5TestNotYet are 5.x test keys not supported yet.
	v5TestNotYet = []string{"workspace"}
	// v5TestUnread are test (and default_test) keys 5.x's schema accepts and its loader never
	// reads (yaml-parser.ts at v5.3.1-next.1 has no reader for them): the test runs as if they
	// were absent, which we say.
	v5TestUnread   = []string{"provider", "providers", "prompts", "provider_output", "assert_scoring_function", "suite"}
	v5TestExecKeys = []string{"assert", "skip_defaults", "threshold", "budget_usd", "budgetUsd", "cache", "fail_on_error", "failOnError"}
)

// v5TestFile loads the raw cases of `tests: file://…` (or a path): a YAML list or JSONL,
// one case a line. Raw cases may carry `input` and `expected_output`, which inline tests may
// not (yaml-parser.ts at v5.3.1-next.1: rejectAuthoredDirectInput reads the eval file only).
func (l *reader) v5TestFile(sx *v5Suite, at *yaml.Node) {
	rel := strings.TrimPrefix(strings.TrimSpace(at.Value), "file://")
	abs := suite.AbsPath(l.Suite.Dir, rel)
	ext := strings.ToLower(filepath.Ext(abs))
	if ext != ".yaml" && ext != ".yml" && ext != ".jsonl" {
		l.Errorf(at, suite.KindFile, "", "test file %q: format %q is not supported yet (want .yaml, .yml or .jsonl)", rel, ext)
		return
	}
	src, err := safefile.ReadFile(abs, safefile.LimitEvalFile)
	if err != nil {
		l.Errorf(at, suite.KindFile, "", "could not read test file %q: %s", suite.DisplayPath(abs, l.Cwd), suite.ErrText(err))
		return
	}
	defer l.InFile(abs)()
	if ext == ".jsonl" {
		l.Src = nil
		for i, line := range bytes.Split(src, []byte("\n")) {
			if n := l.JSONLNode(line, i+1); n != nil {
				l.v5Env(n, map[*yaml.Node]bool{})
				l.v5Test(sx, n, true, i)
			}
		}
		return
	}
	l.Src = src
	doc := l.ParseYAML(src)
	if doc == nil {
		return
	}
	l.v5Env(doc, map[*yaml.Node]bool{})
	list := l.RootOf(doc, yaml.SequenceNode, func(got string) string {
		return "a test file must be a YAML list of tests, got " + got
	})
	if list == nil {
		return
	}
	for i, item := range list.Content {
		l.v5Test(sx, item, true, i)
	}
}

// v5Test reads one 5.x test (raw: a row of a test file) into one case per prompt.
func (l *reader) v5Test(sx *v5Suite, item *yaml.Node, raw bool, index int) {
	n := suite.Deref(item)
	if n == nil || n.Kind != yaml.MappingNode {
		l.Errorf(cmp.Or(n, item), suite.KindCase, "", "tests[%d]: a test must be a mapping with id, vars and assert, got %s (case not loaded)", index, suite.KindName(n))
		return
	}
	es := suite.MapEntries(n)
	f := suite.EntryList(es)
	idKey := f.Get("id")
	id := ""
	if idKey != nil && idKey.Value.Kind == yaml.ScalarNode {
		id = idKey.Value.Value
	}
	l.Dupes(es, id)
	failed := false
	fail := func(at *yaml.Node, format string, args ...any) {
		failed = true
		l.Errorf(at, suite.KindCase, id, "%s", fmt.Sprintf(format, args...)+suite.NotLoaded(id))
	}
	for _, e := range es {
		switch {
		case slices.Contains(v5TestKeys, e.Key):
		case e.Key == "input" || e.Key == "expected_output":
			if !raw {
				fail(e.KeyNode, "a test's %q is not accepted in AgentV 5.x: %s", e.Key, v5Removed[e.Key])
			}
		case e.Key == "assertions" || e.Key == "evaluators":
			fail(e.KeyNode, "a test's %q is not accepted in AgentV 5.x: write %q", e.Key, "assert")
		case e.Key == "expected_outcome":
			fail(e.KeyNode, "a test's %q has been removed in AgentV 5.x: write the check in %q", e.Key, "assert")
		case slices.Contains(v5TestUnread, e.Key):
			l.Warnf(e.KeyNode, suite.KindIgnored, id, "a test's %q is not read by AgentV 5.3.1-next.1 (ignored): the test runs on the file's targets with the file's prompts", e.Key)
		case e.Key == "workspace" && suite.IsNull(e.Value):
		case slices.Contains(v5TestNotYet, e.Key):
			// 5.x merges it into the suite's hook by hook for this test alone; agentv runs
			// one workspace per suite.
			fail(e.KeyNode, "a test's %q is not supported yet: agentv runs one workspace per suite, so write the hooks in the top-level %q", e.Key, e.Key)
		default:
			l.UnknownKey(e, "in test", id, v5TestKeys)
		}
	}

	// vars: default_test's, then the test's over them (mergeDefaultTestVarsIntoCases).
	vars := suite.Mapping(n)
	if sx.vars != nil {
		vars.Content = append(vars.Content, sx.vars.Content...)
	}
	if e := f.Get("vars"); e != nil && !suite.IsNull(e.Value) {
		if e.Value.Kind != yaml.MappingNode {
			fail(e.Value, "%q must be a mapping of names to values, got %s", "vars", suite.KindName(e.Value))
		} else {
			for _, x := range suite.MapEntries(e.Value) {
				vars = replaceOrAdd(vars, x.KeyNode, x.Value)
			}
		}
	}
	hasVars := f.Get("vars") != nil || sx.vars != nil
	rows, list := l.v5VarRows(vars, fail)
	if hasVars && list != nil && len(rows) > 1 && idKey != nil && suite.IsString(idKey.Value) {
		if a := v5RenderID(idKey.Value, rows[0]); a != "" && a == v5RenderID(idKey.Value, rows[1]) {
			fail(list.KeyNode, "var %q is a list, so this test runs once per value, and each run needs its own id: put the var in the id, for example %q",
				list.Key, idKey.Value.Value+"-{{ "+list.Key+" }}")
		}
	}
	if list != nil && len(rows) == 0 && !failed {
		// 5.x makes no test of it, without a word (expandArrayVarCases).
		l.Warnf(list.KeyNode, suite.KindIgnored, id, "var %q is an empty list: the test runs once per value, so it does not run", list.Key)
		return
	}
	if failed && len(rows) > 1 {
		rows = rows[:1] // report the test's errors once
	}
	for _, row := range rows {
		r := v5Row{id: id, idKey: idKey, failed: failed, hasVars: hasVars, vars: row, promptVars: vars}
		if !l.v5TestRow(sx, n, f, raw, r) {
			return // a failing run fails the others the same way: report it once
		}
	}
}

// v5Row is one run of a 5.x test: its vars hold one value of each list var; promptVars are
// the vars as written, which 5.x renders the prompts with before it splits the lists
// (expandPromptMatrix runs before expandArrayVarCases).
type v5Row struct {
	id               string
	idKey            *suite.Entry
	failed, hasVars  bool
	vars, promptVars *yaml.Node
}

// v5TestRow reads one run of a test into one case per prompt; false if it failed.
func (l *reader) v5TestRow(sx *v5Suite, n *yaml.Node, f suite.EntryList, raw bool, row v5Row) bool {
	id, idKey, failed, hasVars, vars, pvars := row.id, row.idKey, row.failed, row.hasVars, row.vars, row.promptVars
	fail := func(at *yaml.Node, format string, args ...any) {
		failed = true
		l.Errorf(at, suite.KindCase, id, "%s", fmt.Sprintf(format, args...)+suite.NotLoaded(id))
	}
	bad := func(at *yaml.Node, tag string) {
		fail(at, "template %q is not supported yet: only {{ name }} and {{ vars.name }} are rendered", tag)
	}
	rd := &v5Renderer{vars: vars, bad: bad, budget: v5RenderBudget, filters: sx.filters,
		filterErr: func(at *yaml.Node, msg string) { fail(at, "%s", msg) }}
	// A test without vars is not rendered at all (interpolateCaseField: no vars, the value as
	// written); a raw case's input moved into its vars gives it some (below).
	render := func(v *yaml.Node) *yaml.Node {
		if !hasVars {
			return v
		}
		return rd.render(v, 0)
	}
	if hasVars && idKey != nil && suite.IsString(idKey.Value) {
		idKey = &suite.Entry{Key: "id", KeyNode: idKey.KeyNode, Value: render(idKey.Value)}
		if suite.IsString(idKey.Value) {
			id = idKey.Value.Value
		}
	}
	if e := f.Get("options"); e != nil && !suite.IsNull(e.Value) {
		if e.Value.Kind != yaml.MappingNode {
			fail(e.Value, "%q must be a mapping, got %s", "options", suite.KindName(e.Value))
		} else if !l.v5Options(e.Value, id) {
			failed = true
		}
	}
	transform := l.v5TestTransform(sx, f.Get("options"), render, id, fail)

	// Execution and run: the test's threshold, skip_defaults and assert.
	skipDefaults := false
	var thr *float64
	var trials *suite.Trials
	var execAssert *suite.Entry
	l.Execution(f.Get("execution"), id, v5TestExecKeys, "assert, skip_defaults and threshold", fail, func(x *suite.Entry) bool {
		switch x.Key {
		case "skip_defaults":
			if c := suite.Classify(x.Value); x.Value.Kind != yaml.ScalarNode || c != suite.ScalarBool {
				fail(x.Value, "execution %q must be true or false, got %s", x.Key, suite.Describe(x.Value))
			} else {
				skipDefaults = strings.EqualFold(x.Value.Value, "true")
			}
		case "threshold":
			thr = suite.ParseThreshold(x, fail)
		case "assert":
			execAssert = x
		case "budget_usd", "budgetUsd", "cache", "fail_on_error", "failOnError":
			l.Warnf(x.KeyNode, suite.KindIgnored, id, "a test's execution %q is not supported yet (ignored)", x.Key)
		case "workers", "trials", "target", "targets":
			fail(x.KeyNode, "a test's execution %q is not accepted in AgentV 5.x", x.Key)
		default:
			return false
		}
		return true
	})
	if e := f.Get("run"); e != nil && !suite.IsNull(e.Value) {
		if e.Value.Kind != yaml.MappingNode {
			fail(e.Value, "%q must be a mapping with threshold, got %s", "run", suite.KindName(e.Value))
		}
		for _, x := range suite.MapEntries(e.Value) {
			switch x.Key {
			case "threshold": // run's wins over execution's (mergeRunOverrides)
				if t := suite.ParseThreshold(&x, fail); t != nil {
					thr = t
				}
			case "repeat": // for this test only, in place of the suite's
				if t, good := v5RepeatOf(&x, "run.repeat", func(at *yaml.Node, msg string) { fail(at, "%s", msg) }); good {
					trials = t
				}
			case "timeout_seconds", "budget_usd":
				fail(x.KeyNode, "a test's run %q is not supported yet", x.Key)
			default:
				fail(x.KeyNode, "%s", strings.Replace(suite.UnknownKeyMsg(x.Key, "in run", []string{"threshold", "repeat", "timeout_seconds", "budget_usd"}), " (ignored)", "", 1))
			}
		}
	}
	if t, _ := v5OptionsRepeat(sx, f.Get("options"), fail); t != nil {
		trials = t
	}
	if e := f.Get("threshold"); e != nil && !suite.IsNull(e.Value) {
		l.Warnf(e.KeyNode, suite.KindIgnored, id, "a test's %q is not read by AgentV 5.3.1-next.1 (ignored): write run.threshold", "threshold")
	}

	// Assertions: the test's own (assert, else execution.assert), then the suite's unless
	// skip_defaults; criteria alone becomes one assertion string (as 5.x desugars it).
	own := f.Get("assert")
	if own == nil || suite.IsNull(own.Value) {
		own = execAssert
	}
	var ownItems []*yaml.Node
	if own != nil && !suite.IsNull(own.Value) {
		if v := suite.Deref(own.Value); v.Kind != yaml.SequenceNode {
			fail(v, "%q must be a list of assertions, got %s", own.Key, suite.KindName(v))
		} else {
			ownItems = render(v).Content
		}
	}
	suiteAsserts := len(sx.asserts) > 0 && !skipDefaults
	criteria := f.Get("criteria")
	if criteria != nil && !suite.IsNull(criteria.Value) && own == nil && !suiteAsserts {
		ownItems = []*yaml.Node{render(criteria.Value)}
	}
	at := n
	if own != nil {
		at = own.KeyNode
	}
	evals := l.v5Assertions(ownItems, at, id, fail)
	// What each entry wrote, by position: the test's own and the suite's apart, since the
	// suite's may come from another file (default_test: file://…).
	ownWritten, suiteWritten, ownCount := map[v5Pos]v5Written{}, map[v5Pos]v5Written{}, len(evals)
	v5WrittenTypes(ownItems, ownWritten)
	if suiteAsserts {
		// As written: 5.3.1-next.1 renders a test's own fields with its vars, not the
		// suite's assertions (yaml-parser.ts: globalExecution.assert goes to parseGraders as
		// is; loadV5 warns about the templates they hold).
		evals = append(evals, l.v5Assertions(sx.asserts, sx.assertsAt, id, fail)...)
		v5WrittenTypes(sx.asserts, suiteWritten)
	}
	assertTransforms := l.v5TakeTransforms(evals, nil)

	var cf suite.CaseFields
	if criteria != nil && !suite.IsNull(criteria.Value) {
		cf.Outcome = &suite.Entry{Key: criteria.Key, KeyNode: criteria.KeyNode, Value: render(criteria.Value)}
	}
	if e := f.Get("expected_output"); raw && e != nil && !suite.IsNull(e.Value) {
		cf.Expected = &suite.Entry{Key: e.Key, KeyNode: e.KeyNode, Value: render(e.Value)}
	}
	cf.Conversation = f.Get("conversation_id")
	if len(evals) > 0 || own != nil || suiteAsserts {
		cf.Evals = &suite.Entry{Key: "evaluators", KeyNode: at, Value: suite.SeqNode(at, evals...)}
	}
	conv, _ := l.v5Conversation(n, f, id, render, fail)
	if cf.Evals == nil && cf.Outcome == nil && cf.Expected == nil && f.Get("mode") == nil && !failed {
		fail(n, "test needs %q (or %q) to be scored", "assert", "criteria")
	}

	// Input: each prompt rendered with the vars (a raw case's input is the var `input`), else
	// a raw case's own input (yaml-parser.ts, expandPromptMatrix).
	input := f.Get("input")
	prompts := sx.prompts
	files, _ := v5InputFiles(sx, f, skipDefaults, render)
	switch {
	case len(prompts) > 0:
		if raw && input != nil && !suite.IsNull(input.Value) {
			// The input becomes a var and the case's input_files are dropped
			// (expandPromptMatrix).
			files = nil
			vars, hasVars = replaceOrAdd(vars, input.KeyNode, input.Value), true
			pvars = replaceOrAdd(pvars, input.KeyNode, input.Value)
		}
	case raw && input != nil && !suite.IsNull(input.Value):
		prompts = []v5Prompt{{input: input.Value}}
	default:
		if in, rest, found := l.v5PromptFromFiles(files, fail); found {
			if in != nil {
				prompts, files = []v5Prompt{{input: in}}, rest
			}
			break
		}
		if in := l.v5SiblingPrompt(n, fail); in != nil {
			prompts = []v5Prompt{{input: in}}
			break
		}
		if !failed {
			fail(n, "test has no input: write the prompt in top-level %q (for example %q) and the test's data in its %q", "prompts", "{{ input }}", "vars")
		}
	}
	if d := f.Get("depends_on"); d != nil && len(prompts) > 1 {
		fail(d.KeyNode, "%q with several prompts is not supported yet", "depends_on")
	}
	if !failed && !l.v5TestEnvironment(sx, id, f.Get("environment"), render, fail) {
		failed = true
	}
	if failed {
		if _, dup := l.IDs[id]; id != "" && !dup {
			l.IDs[id] = n.Line // a later test with this id is still a duplicate
		}
		return false
	}
	for _, p := range prompts {
		pcf := cf
		rd.vars = vars // with a raw case's input among them
		if len(sx.prompts) > 0 {
			rd.vars = pvars
		}
		rd.inPrompt = len(sx.prompts) > 0 // renderPromptInput has no filters
		in := render(p.input)
		rd.inPrompt = false
		if len(sx.prompts) > 0 {
			// 5.x renders the prompt with the vars as written into the test's input, then
			// renders the test's fields, that input among them, once more with this run's
			// vars (expandPromptMatrix, expandArrayVarCases, then interpolateRawEvalCase): a
			// var holding a template is rendered too, and a list var named in the prompt
			// itself reads as its values joined by commas.
			rd.vars = vars
			in = render(in)
		}
		if failed {
			return false
		}
		if files != nil {
			if m := l.InputFilesMessage(files, in, fail); m != nil {
				pcf.Input = &suite.Entry{Key: "input_messages", KeyNode: n, Value: suite.SeqNode(n, m)}
			}
		} else if msgs := l.V4Messages(in, fail); len(msgs) > 0 {
			pcf.Input = &suite.Entry{Key: "input_messages", KeyNode: n, Value: suite.SeqNode(n, msgs...)}
		}
		key := idKey
		if len(prompts) > 1 && idKey != nil && suite.IsString(idKey.Value) {
			// 5.x gives each prompt's copy of a test its own id (expandPromptMatrix).
			key = &suite.Entry{Key: "id", KeyNode: idKey.KeyNode, Value: suite.StrNode(idKey.Value, idKey.Value.Value+"__prompt_"+v5PromptID(p.id))}
		}
		c := l.NewCase(n, key).Build(pcf)
		if c == nil {
			continue
		}
		own := min(ownCount, len(c.Evaluators))
		setRecordTypes(c.Evaluators[:own], ownWritten)
		setRecordTypes(c.Evaluators[own:], suiteWritten)
		c.Threshold, c.Trials, c.Conversation = thr, trials, conv
		c.Transform = transform
		v5SetTransforms(c.Evaluators, assertTransforms)
		l.v5CaseContext(c, vars, hasVars, p, len(sx.prompts) > 0)
		c.Metadata = suite.V4Metadata(sx.metadata, l.V4MetadataOf(f.Get("metadata"), c.ID))
		if d := l.V4Dependencies(f, c.ID, c); d != nil {
			l.Deps[c] = d
		}
		l.AddCase(c)
	}
	return !failed
}

// replaceOrAdd returns mapping m with key's value set to v (a copy when it changes).
func replaceOrAdd(m, key, v *yaml.Node) *yaml.Node {
	c := *m
	c.Content = slices.Clone(m.Content)
	for i := 0; i+1 < len(c.Content); i += 2 {
		if c.Content[i].Value == key.Value {
			c.Content[i+1] = v
			return &c
		}
	}
	c.Content = append(c.Content, key, v)
	return &c
}
