package migrate

import (
	yaml "go.yaml.in/yaml/v4"
)

// graderLists are the keys of a grader list in 4.x order; 5.x knows only `assert`.
var graderLists = []string{"assertions", "assert", "evaluators"}

// to5 rewrites a 4.x eval file (or what from25 made of a 2.5 one) as 5.x: the suite's
// execution, grader lists, workspace, and every test. A 5.x file passes through unchanged.
func (m *migration) to5() {
	r := m.root
	m.suiteExecution()
	m.graderList(r, "")
	m.staleRunKeys()
	if has(r, "workspace") {
		m.workspace(r, "")
	}
	if kn := keyNode(r, "preprocessors"); kn != nil {
		m.human(kn, false, "preprocessors: left as it is; 5.x shapes output with %q (default_test.options.transform or an assertion's transform)", "transform")
	}
	if v, ok := scalar(get(r, "name")); ok && !suiteName.MatchString(v) {
		m.human(keyNode(r, "name"), false, "name: left as it is: 5.x accepts only lower-case letters, digits and dashes")
	}
	if kn := keyNode(r, "defaults"); kn != nil {
		m.human(kn, false, "defaults: left as it is; in 5.x it holds only %q and %q", "target", "grader")
	}
	m.asserts(get(r, "assert"))
	m.asserts(get(get(r, "default_test"), "assert"))
	tests := deref(get(r, "tests"))
	if tests != nil && tests.Kind == yaml.SequenceNode {
		m.tests(tests)
	} else {
		for _, key := range []string{"input", "input_files"} {
			if kn := keyNode(r, key); kn != nil {
				m.human(kn, false, "%s (the suite's): left as it is: 5.x rejects it; the tests are in another file, whose rows need it in their input", key)
			}
		}
	}
	m.rewriteEnvRefs(r) // 4.x filled ${{ NAME }} in eval files too
}

// graderList renames a mapping's 4.x grader list (`assertions`, `evaluators`) to `assert`.
// 4.x used the first one set; when several are, the others are left for a human.
func (m *migration) graderList(n *yaml.Node, where string) {
	var set []*yaml.Node
	for _, k := range graderLists {
		if kn := keyNode(n, k); kn != nil && !isNull(get(n, k)) {
			set = append(set, kn)
		}
	}
	if len(set) == 0 {
		return
	}
	if len(set) > 1 {
		for _, kn := range set[1:] {
			m.human(kn, false, "%s%s: left as it is: 4.x ignored it, since %q (line %d) is set; merge it into %q or delete it", where, kn.Value, set[0].Value, set[0].Line, "assert")
		}
	}
	if set[0].Value != "assert" && !has(n, "assert") {
		m.did(set[0], "%s%s → assert", where, set[0].Value)
		set[0].Value = "assert"
	}
}

// suiteExecution moves the suite's execution keys to their 5.x homes (the top level and
// evaluate_options) and removes execution; keys with no home stay under it for a human.
func (m *migration) suiteExecution() {
	r := m.root
	i := find(r, "execution")
	if i < 0 {
		return
	}
	kn, x := r.Content[i], deref(r.Content[i+1])
	if isNull(x) {
		drop(r, "execution")
		m.did(kn, "execution (empty) removed")
		return
	}
	if x.Kind != yaml.MappingNode {
		m.human(kn, false, "execution: left as it is (%s); 5.x has no execution: move its settings to the top level and evaluate_options", kindName(x))
		return
	}
	var moved []*yaml.Node // pairs that take execution's place, in order
	opts := mapping()      // pairs for evaluate_options
	keep := mapping()      // pairs with no 5.x home
	suiteList := false
	for _, k := range graderLists {
		suiteList = suiteList || (has(r, k) && !isNull(get(r, k)))
	}
	for j := 0; j+1 < len(x.Content); j += 2 {
		k, v := x.Content[j], x.Content[j+1]
		name := k.Value
		switch name {
		case "target", "targets", "threshold":
			if has(r, name) {
				m.human(k, false, "execution.%s: left as it is: the top level sets %s too; keep one", name, name)
				keep.Content = append(keep.Content, k, v)
				continue
			}
			if name == "targets" {
				m.targetRefs(v)
			}
			moved = append(moved, k, v)
			m.did(k, "execution.%s → %s", name, name)
		case "trials":
			k.Value = "repeat"
			opts.Content = append(opts.Content, k, m.repeat(v))
			m.did(k, "execution.trials → evaluate_options.repeat")
		case "budget_usd":
			opts.Content = append(opts.Content, k, v)
			m.did(k, "execution.budget_usd → evaluate_options.budget_usd")
		case "workers", "max_concurrency":
			k.Value = "max_concurrency"
			opts.Content = append(opts.Content, k, v)
			m.did(k, "execution.%s → evaluate_options.max_concurrency", name)
		case "assertions", "assert", "evaluators":
			if suiteList || isNull(v) {
				m.human(k, false, "execution.%s: left as it is: 4.x ignored it, since the suite sets a grader list before it; merge it into %q", name, "assert")
				keep.Content = append(keep.Content, k, v)
				continue
			}
			suiteList = true
			k.Value = "assert"
			moved = append(moved, k, v)
			m.did(k, "execution.%s → assert", name)
		case "fail_on_error", "cache":
			m.human(k, true, "execution.%s removed: a 5.x eval file has no place for it; set it in the project's .agentv/config.yaml or on the command line", name)
		default:
			m.human(k, false, "execution.%s: left as it is: no 5.x equivalent known (5.x rejects execution)", name)
			keep.Content = append(keep.Content, k, v)
		}
	}
	if len(opts.Content) > 0 {
		if eo := get(r, "evaluate_options"); eo != nil {
			if eo.Kind != yaml.MappingNode {
				m.human(keyNode(r, "evaluate_options"), false, "evaluate_options is not a mapping: execution's run settings were left under execution")
				keep.Content = append(keep.Content, opts.Content...)
			} else {
				for j := 0; j+1 < len(opts.Content); j += 2 {
					if has(eo, opts.Content[j].Value) {
						m.human(opts.Content[j], false, "execution: %s left as it is: evaluate_options sets it too", opts.Content[j].Value)
						keep.Content = append(keep.Content, opts.Content[j], opts.Content[j+1])
						continue
					}
					eo.Content = append(eo.Content, opts.Content[j], opts.Content[j+1])
				}
			}
		} else {
			moved = append(moved, str("evaluate_options"), opts)
		}
	}
	m.edited = true
	if len(keep.Content) > 0 {
		x.Content = keep.Content
		r.Content = append(r.Content[:i+2:i+2], append(moved, r.Content[i+2:]...)...)
		return
	}
	r.Content = append(r.Content[:i:i], append(moved, r.Content[i+2:]...)...)
	if len(moved) > 0 {
		moveComments(kn, moved[0])
		m.like = map[*yaml.Node]*yaml.Node{moved[0]: kn}
	}
	m.did(kn, "execution removed (5.x rejects it)")
}

// repeat rewrites 4.x trials as 5.x repeat: pass_at_k is pass_any with early_exit, since 4.x
// stops at the first passing trial and 5.x runs every sample unless told to stop.
func (m *migration) repeat(v *yaml.Node) *yaml.Node {
	if s := get(v, "strategy"); s != nil && s.Kind == yaml.ScalarNode && s.Value == "pass_at_k" {
		s.Value = "pass_any"
		m.did(s, "trials strategy pass_at_k → pass_any")
		if get(v, "early_exit") == nil {
			set(v, "early_exit", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		}
	}
	return v
}

// targetRefs renames the `name` of 4.x target objects in an eval file's targets to `id`.
func (m *migration) targetRefs(list *yaml.Node) {
	list = deref(list)
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	for _, t := range list.Content {
		if t.Kind != yaml.MappingNode {
			continue
		}
		m.renameKey(t, "name", "id", "targets: ")
		if kn := keyNode(t, "use_target"); kn != nil {
			m.human(kn, false, "use_target: left as it is; 5.x wants a concrete target with %q here", "provider")
		}
	}
}

// staleRunKeys moves run controls some pre-5 files wrote at the top level into
// evaluate_options: repeat, runs, early_exit, budget_usd and workers.
func (m *migration) staleRunKeys() {
	r := m.root
	for _, name := range []string{"repeat", "runs", "early_exit", "budget_usd", "workers"} {
		i := find(r, name)
		if i < 0 {
			continue
		}
		kn, v := r.Content[i], r.Content[i+1]
		eo, created := deref(get(r, "evaluate_options")), false
		switch {
		case eo == nil:
			eo, created = mapping(), true // put in place only once something goes in
		case eo.Kind != yaml.MappingNode:
			m.human(kn, false, "%s: left as it is: evaluate_options is not a mapping", name)
			continue
		}
		dest, key := eo, name
		switch name {
		case "runs":
			key = "count"
			switch rp := deref(get(eo, "repeat")); {
			case rp == nil:
				dest = mapping()
				eo.Content = append(eo.Content, str("repeat"), dest)
			case rp.Kind == yaml.MappingNode:
				dest = rp
			default:
				m.human(kn, false, "runs: left as it is: evaluate_options.repeat is set")
				continue
			}
		case "early_exit":
			rp := deref(get(eo, "repeat"))
			if rp == nil || rp.Kind != yaml.MappingNode {
				m.human(kn, false, "early_exit: left as it is; write it under evaluate_options.repeat (with count)")
				continue
			}
			dest = rp
		case "workers":
			key = "max_concurrency"
		}
		if has(dest, key) {
			m.human(kn, false, "%s: left as it is: evaluate_options sets %s too", name, key)
			continue
		}
		if created {
			insertAt(r, find(r, name), str("evaluate_options"), eo)
		}
		remove(r, name)
		kn.Value = key
		dest.Content = append(dest.Content, kn, v)
		path := "evaluate_options." + key
		if dest != eo {
			path = "evaluate_options.repeat." + key
		}
		m.did(kn, "%s → %s", name, path)
	}
}
