package migrate

import (
	"regexp"

	yaml "go.yaml.in/yaml/v4"
)

// suiteName is what 5.x accepts as a suite's `name`.
var suiteName = regexp.MustCompile(`^[a-z0-9-]+$`)

// from25 renames AgentV 2.5's keys to their 4.x names, so that to5 finishes the file: the
// case list, the dataset name, evaluators, and each case's message keys.
func (m *migration) from25() {
	r := m.root
	for _, k := range legacyCaseLists {
		if m.renameKey(r, k, "tests", "") {
			break
		}
	}
	if kn := keyNode(r, "dataset"); kn != nil {
		if v, ok := scalar(get(r, "dataset")); ok && suiteName.MatchString(v) && !has(r, "name") {
			rename(r, "dataset", "name")
			m.did(kn, "dataset → name")
		} else {
			m.human(kn, false, "dataset: 5.x names a suite with %q (lower-case letters, digits and dashes); rename it by hand", "name")
		}
	}
	suiteEvals := has(r, "evaluators") || has(get(r, "execution"), "evaluators")
	m.evaluatorKeys(r)
	tests := deref(get(r, "tests"))
	if tests == nil || tests.Kind != yaml.SequenceNode {
		return
	}
	for _, c := range tests.Content {
		if c.Kind != yaml.MappingNode {
			continue
		}
		m.renameKey(c, "input_messages", "input", "")
		if !has(c, "input") {
			m.renameKey(c, "question", "input", "")
		}
		m.renameKey(c, "expected_messages", "expected_output", "")
		if !m.renameKey(c, "expected_outcome", "criteria", "") {
			m.renameKey(c, "outcome", "criteria", "")
		}
		x := get(c, "execution")
		own := has(c, "evaluators") || has(x, "evaluators")
		m.evaluatorKeys(c)
		// In 2.5 a case's own evaluators replace the suite's; in 4.x and 5.x the suite's are
		// added unless the test skips them.
		if own && suiteEvals && !has(x, "skip_defaults") {
			kn := keyNode(c, "assert")
			if kn == nil {
				kn = keyNode(c, "execution")
			}
			if x == nil {
				x = child(c, "execution", -1)
			}
			if x != nil && x.Kind == yaml.MappingNode {
				x.Content = append(x.Content, str("skip_defaults"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
				m.did(kn, "execution.skip_defaults: true (a 2.5 case's own evaluators replace the suite's)")
			}
		}
		if kn := keyNode(c, "reference_answer"); kn != nil {
			_, v := remove(c, "reference_answer")
			if vars := child(c, "vars", -1); vars != nil && !has(vars, "reference_answer") {
				vars.Content = append(vars.Content, kn, v)
				m.human(kn, true, "reference_answer → vars.reference_answer: 5.x hands it to a grader only through an assertion that names {{ reference_answer }}")
			} else {
				insertAt(c, len(c.Content), kn, v)
				m.human(kn, false, "reference_answer: left as it is (vars is not a mapping or already has it)")
			}
		}
	}
}

// evaluatorKeys renames 2.5's `evaluators` in n to `assert` (to5 moves execution's), and
// drops `evaluator: llm_judge`, which only named the default judge.
func (m *migration) evaluatorKeys(n *yaml.Node) {
	m.renameKey(n, "evaluators", "assert", "")
	if kn := keyNode(n, "evaluator"); kn != nil {
		if v, ok := scalar(get(n, "evaluator")); ok && (v == "llm_judge" || v == "llm-judge") {
			drop(n, "evaluator")
			m.did(kn, "evaluator: %s removed (it named the default judge, which needs no entry)", v)
		} else {
			m.human(kn, false, "evaluator: left as it is; write the grader as an entry of %q", "assert")
		}
	}
}
