package migrate

import (
	"fmt"
	"regexp"

	yaml "go.yaml.in/yaml/v4"
)

// expectedRef is a template that reads a test's reference answer.
var expectedRef = regexp.MustCompile(`\{\{-?\s*(vars\.)?expected_output\b`)

// tests rewrites every test of the list, then folds the suite's input into them and adds
// the prompt that renders each test's vars.input.
func (m *migration) tests(list *yaml.Node) {
	r := m.root
	suiteInput, suiteFiles := get(r, "input"), get(r, "input_files")
	foldable := true // every test could take the suite's input and files
	varsInput := false
	for _, t := range list.Content {
		if t.Kind != yaml.MappingNode || has(t, "include") {
			continue
		}
		m.test(t)
		ok, moved := m.input(t, suiteInput, suiteFiles)
		foldable = foldable && ok
		varsInput = varsInput || moved
		m.expected(t)
		m.listVars(t)
	}
	if foldable {
		for _, key := range []string{"input", "input_files"} {
			if kn := keyNode(r, key); kn != nil {
				drop(r, key)
				m.did(kn, "%s (the suite's) folded into each test's vars.input", key)
			}
		}
	} else {
		for _, key := range []string{"input", "input_files"} {
			if kn := keyNode(r, key); kn != nil {
				m.human(kn, false, "%s (the suite's): left as it is: a test below could not take it (the others have it in their vars.input); 5.x rejects it beside prompts: delete it once that test is fixed", key)
			}
		}
	}
	if varsInput && !has(r, "prompts") {
		at := find(r, "tests")
		kn := str("prompts")
		kn.HeadComment = "# Each test's vars.input is its prompt (AgentV 4.x's input)."
		insertAt(r, at, kn, seq(quoted("{{ input }}")))
		m.did(keyNode(r, "tests"), "prompts: [\"{{ input }}\"] added: 5.x renders each test's vars.input through it")
	}
	var expected []*yaml.Node
	for _, t := range list.Content {
		if t.Kind == yaml.MappingNode && m.movedExpected[t] != nil {
			expected = append(expected, m.movedExpected[t])
		}
	}
	if len(expected) > 0 && !m.consumesExpected() {
		m.human(expected[0], false, "vars.expected_output (%d test%s): 5.x grades against it only through an assertion that names {{ expected_output }}, e.g. {type: llm-rubric, value: \"Matches the reference answer: {{ expected_output }}\"} in default_test.assert", len(expected), plural(len(expected)))
	}
}

// test rewrites one test's own keys: grader lists, rubrics, criteria, note, execution,
// conversation turns, workspace.
func (m *migration) test(t *yaml.Node) {
	m.graderList(t, "")
	m.inlineRubrics(t)
	if !has(t, "criteria") {
		m.renameKey(t, "expected_outcome", "criteria", "")
	}
	m.criteriaBesideAssert(t)
	if kn := keyNode(t, "note"); kn != nil {
		if md := child(t, "metadata", -1); md != nil && !has(md, "note") {
			_, v := remove(t, "note")
			md.Content = append(md.Content, kn, v)
			m.did(kn, "note → metadata.note (5.x has no note)")
		} else {
			m.human(kn, false, "note: left as it is (metadata is not a mapping or has a note); 5.x has no note")
		}
	}
	m.testExecution(t)
	if turns := deref(get(t, "turns")); turns != nil && turns.Kind == yaml.SequenceNode {
		for _, turn := range turns.Content {
			if turn.Kind == yaml.MappingNode {
				m.graderList(turn, "turn ")
				m.asserts(get(turn, "assert"))
			}
		}
	}
	if has(t, "workspace") {
		m.workspace(t, "test ")
	}
	for _, key := range []string{"preprocessors", "postprocess"} {
		if kn := keyNode(t, key); kn != nil {
			m.human(kn, false, "%s: left as it is; 5.x shapes output with tests[].options.transform or an assertion's transform", key)
		}
	}
	m.asserts(get(t, "assert"))
}

// criteriaBesideAssert moves a test's criteria to its description when the test has its own
// assert, which 5.x rejects beside criteria. In 4.x criteria beside assertions only reached
// graders that read it: an llm-grader without its own prompt grades against it, so such a
// test is left for a human.
func (m *migration) criteriaBesideAssert(t *yaml.Node) {
	kn := keyNode(t, "criteria")
	list := deref(get(t, "assert"))
	if kn == nil || list == nil {
		return
	}
	if list.Kind == yaml.SequenceNode {
		for _, e := range list.Content {
			if typ, _ := scalar(get(e, "type")); deref(e).Kind == yaml.MappingNode && !has(deref(e), "prompt") &&
				(typ == "llm-grader" || typ == "llm_grader" || typ == "llm-judge" || typ == "llm_judge") {
				m.human(kn, false, "criteria: left as it is: 5.x rejects criteria beside a test's assert, and the llm-grader at line %d grades against it; give that grader a prompt (or an llm-rubric value) with the criteria", lineOf(e, kn.Line))
				return
			}
		}
	}
	if has(t, "description") {
		m.human(kn, false, "criteria: left as it is: 5.x rejects criteria beside a test's assert, and the test has a description; merge them")
		return
	}
	rename(t, "criteria", "description")
	m.did(kn, "criteria → description: 5.x rejects criteria beside a test's assert (a grader prompt reading {{ criteria }} needs the text written in)")
}

// listVars names the vars that hold a list of strings: 4.x handed such a list to templates
// as it is, 5.x (as promptfoo) runs the test once for each of its items. The notes count
// only in a file migrate rewrote: in a 5.x file such a list is meant.
func (m *migration) listVars(t *yaml.Node) {
	vars := deref(get(t, "vars"))
	if vars == nil || vars.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(vars.Content); i += 2 {
		v := deref(vars.Content[i+1])
		if v.Kind != yaml.SequenceNode {
			continue
		}
		if _, isText := scalar(firstOr(v.Content)); len(v.Content) == 0 || isText {
			m.later = append(m.later, Note{Line: lineOf(vars.Content[i], 0), Manual: true, Text: fmt.Sprintf("vars.%s: a list of strings: 5.x runs the test once per item (4.x passed the list whole); join it into one string or wrap it in a mapping to keep one test", vars.Content[i].Value)})
		}
	}
}

func firstOr(list []*yaml.Node) *yaml.Node {
	if len(list) == 0 {
		return nil
	}
	return list[0]
}

// expected moves a test's reference answer into its vars.
func (m *migration) expected(t *yaml.Node) {
	if kn := keyNode(t, "expected_output"); kn != nil {
		if vars := child(t, "vars", find(t, "expected_output")); vars != nil && !has(vars, "expected_output") {
			_, v := remove(t, "expected_output")
			vars.Content = append(vars.Content, kn, v)
			m.did(kn, "expected_output → vars.expected_output")
			if m.movedExpected == nil {
				m.movedExpected = map[*yaml.Node]*yaml.Node{}
			}
			m.movedExpected[t] = kn
		} else {
			m.human(kn, false, "expected_output: left as it is (vars is not a mapping or has one); move it to vars.expected_output")
		}
	}
}

// inlineRubrics turns a test's `rubrics` into an llm-rubric assertion ahead of its others,
// where 4.x (and 2.5) put that grader.
func (m *migration) inlineRubrics(t *yaml.Node) {
	i := find(t, "rubrics")
	if i < 0 {
		return
	}
	kn, v := t.Content[i], t.Content[i+1]
	list := deref(get(t, "assert"))
	if list != nil && list.Kind != yaml.SequenceNode {
		m.human(kn, false, "rubrics: left as it is; add it to assert as {type: llm-rubric, value: [...]}")
		return
	}
	entry := mapping(str("type"), str("llm-rubric"), str("value"), v)
	remove(t, "rubrics")
	if list == nil {
		ak := str("assert")
		moveComments(kn, ak)
		insertAt(t, i, ak, seq(entry))
	} else {
		entry.HeadComment, entry.LineComment = kn.HeadComment, kn.LineComment
		list.Content = append([]*yaml.Node{entry}, list.Content...)
	}
	m.did(kn, "rubrics → an llm-rubric assertion (first in assert)")
}

// testExecution moves a test's grader lists to execution.assert and leaves what 5.x has no
// per-test place for.
func (m *migration) testExecution(t *yaml.Node) {
	x := deref(get(t, "execution"))
	if x == nil || x.Kind != yaml.MappingNode {
		return
	}
	m.graderList(x, "execution.")
	m.asserts(get(x, "assert"))
	for _, key := range []string{"target", "targets"} {
		if kn := keyNode(x, key); kn != nil {
			m.human(kn, false, "execution.%s: left as it is: 5.x chooses targets for the whole file (top-level target/targets or --target); split the test into its own eval file", key)
		}
	}
	if kn := keyNode(x, "trials"); kn != nil && !m.v2 {
		drop(x, "trials")
		m.did(kn, "execution.trials removed: 4.x ignored a test's trials (5.x: run.repeat)")
	}
	if kn := keyNode(x, "workers"); kn != nil {
		m.human(kn, false, "execution.workers: left as it is; 5.x sets concurrency in evaluate_options.max_concurrency for the file")
	}
}

// input moves a test's input to vars.input, with the suite's input before it and its input
// files (or the suite's) as file blocks, as 4.x builds the first user turn. ok is false when
// the test's input cannot take the suite's parts; moved when vars.input was written.
func (m *migration) input(t, suiteInput, suiteFiles *yaml.Node) (ok, moved bool) {
	x := deref(get(t, "execution"))
	skip := false
	if v, isScalar := scalar(get(x, "skip_defaults")); isScalar && v == "true" {
		skip = true
	}
	in := get(t, "input")
	files := get(t, "input_files")
	if isNull(files) && !skip {
		files = suiteFiles
	}
	useSuite := !isNull(suiteInput) && !skip
	if in == nil {
		return !useSuite || has(t, "turns"), false
	}
	kn := keyNode(t, "input")
	if v := deref(get(t, "vars")); v != nil && (v.Kind != yaml.MappingNode || has(v, "input")) {
		m.human(kn, false, "input: left as it is (vars is not a mapping or has an input); move it to vars.input")
		return false, false
	}
	var value *yaml.Node
	switch {
	case !useSuite && isNull(files) && deref(in).Kind == yaml.MappingNode:
		value = seq(in) // one message: a chat prompt is a list
	case !useSuite && isNull(files):
		value = in
	default:
		var msgs []*yaml.Node
		if useSuite {
			msgs = append(msgs, messages(suiteInput)...)
		}
		if !isNull(files) {
			text, isText := scalar(in)
			fl := deref(files)
			if !isText || fl.Kind != yaml.SequenceNode {
				m.human(kn, false, "input: left as it is: input_files needs a string input and a list of files; write the message with file blocks in vars.input by hand")
				return false, false
			}
			content := seq()
			for _, f := range fl.Content {
				content.Content = append(content.Content, mapping(str("type"), str("file"), str("value"), f))
			}
			content.Content = append(content.Content, mapping(str("type"), str("text"), str("value"), textNode(in, text)))
			msgs = append(msgs, mapping(str("role"), str("user"), str("content"), content))
		} else {
			msgs = append(msgs, messages(in)...)
		}
		value = seq(msgs...)
	}
	vars := child(t, "vars", find(t, "input"))
	remove(t, "input")
	vars.Content = append(vars.Content, kn, value)
	what := "input → vars.input"
	if useSuite {
		what += ", after the suite's input"
	}
	if fk := keyNode(t, "input_files"); fk != nil {
		drop(t, "input_files")
		what += ", with its input_files as file blocks"
	} else if !isNull(files) {
		what += ", with the suite's input_files as file blocks"
	}
	m.did(kn, "%s", what)
	return true, true
}

// messages is an input as a message list: a string is one user message.
func messages(in *yaml.Node) []*yaml.Node {
	switch n := deref(in); n.Kind {
	case yaml.SequenceNode:
		return n.Content
	case yaml.MappingNode:
		return []*yaml.Node{n}
	default:
		return []*yaml.Node{mapping(str("role"), str("user"), str("content"), n)}
	}
}

// textNode keeps a string input's own node (its style) unless it is an alias.
func textNode(in *yaml.Node, text string) *yaml.Node {
	if in.Kind == yaml.ScalarNode {
		return in
	}
	return str(text)
}

// consumesExpected tells whether some assertion or prompt of the file names
// {{ expected_output }}.
func (m *migration) consumesExpected() bool {
	found := false
	walk(m.root, func(n *yaml.Node) {
		found = found || (n.Kind == yaml.ScalarNode && expectedRef.MatchString(n.Value))
	})
	return found
}

// isCaseList tells whether root is a list of raw cases (mappings), the file an eval file's
// `tests: ./cases.yaml` names.
func isCaseList(root *yaml.Node) bool {
	if root.Kind != yaml.SequenceNode || len(root.Content) == 0 {
		return false
	}
	for _, c := range root.Content {
		if deref(c).Kind != yaml.MappingNode {
			return false
		}
	}
	return true
}

// caseFile rewrites a raw case list: its grader lists and types. Its rows keep input and
// expected_output, as 5.x reads them in a case file.
func (m *migration) caseFile(list *yaml.Node) {
	for _, t := range list.Content {
		if t.Kind != yaml.MappingNode {
			continue
		}
		m.test(t)
	}
	m.rewriteEnvRefs(list)
}
